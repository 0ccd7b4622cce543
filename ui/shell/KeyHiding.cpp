#include "ui/shell/KeyHiding.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"

#include <QAction>
#include <QMenu>

namespace attn {

KeyHiding::KeyHiding(MainWindow& window) : QObject(&window), m_window(window)
{
}

void KeyHiding::toggle(int key)
{
    const auto result = m_window.result();
    if (!result || key < 0 || key >= result->keyLen())
        return;
    QList<int> hidden = m_window.heatmapMenu()->hiddenKeys();
    if (hidden.contains(key)) {
        hidden.removeAll(key);
    } else {
        hidden.append(key);
        QList<int> inside;  // positions beyond a shorter input wait for a longer one
        for (int position : hidden)
            if (position < result->keyLen())
                inside.append(position);
        if (auto checked = AttentionDisplay::hiddenKeys(inside, result->keyLen()); !checked) {
            m_window.messageBar()->showError(
                tr("Cannot hide '%1': %2").arg(result->keyTokens()[key].text, checked.error()),
                MessageBar::Subject::Export);
            return;
        }
    }
    m_window.heatmapMenu()->setHiddenKeys(hidden);
}

void KeyHiding::showMenu(int key, const QPoint& global_position)
{
    const auto result = m_window.result();
    if (!result || key < 0 || key >= result->keyLen())
        return;
    QMenu menu(&m_window);
    const QString token = result->keyTokens()[key].text;
    const bool hidden = m_window.heatmapMenu()->hiddenKeys().contains(key);
    QAction* toggle_action = menu.addAction(hidden ? tr("Show '%1' (key %2) in the heatmaps").arg(token).arg(key)
                                                   : tr("Hide '%1' (key %2) in the heatmaps").arg(token).arg(key));
    toggle_action->setToolTip(
        tr("Hidden keys are drawn hatched with their label struck through; every query's weights "
           "are renormalised over the keys that remain"));
    QAction* show_all = menu.addAction(tr("Show every token"));
    show_all->setEnabled(!m_window.heatmapMenu()->hiddenKeys().isEmpty());
    QAction* chosen = menu.exec(global_position);
    if (chosen == toggle_action)
        toggle(key);
    else if (chosen == show_all)
        m_window.heatmapMenu()->setHiddenKeys({});
}

void KeyHiding::showOnStrips()
{
    const auto result = m_window.result();
    if (!result)
        return;
    const std::vector<bool> hidden = m_window.viewTabs()->shownHiddenKeys();
    m_window.tokenStrip()->setHidden(result->isCross() ? std::vector<bool>{} : hidden);
    m_window.kvTokenStrip()->setHidden(result->isCross() ? hidden : std::vector<bool>{});
}

}  // namespace attn
