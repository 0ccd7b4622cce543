// MainWindow, continued: the heatmap options that act on the token chips (keys hidden in the
// heatmaps). Split from MainWindow.cpp to keep
// each file small.
#include "ui/shell/MainWindow.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"

#include <QMenu>

namespace attn {

void MainWindow::toggleHiddenKey(int key)
{
    if (!m_result || key < 0 || key >= m_result->keyLen())
        return;
    QList<int> hidden = m_heatmap_menu->hiddenKeys();
    if (hidden.contains(key)) {
        hidden.removeAll(key);
    } else {
        hidden.append(key);
        QList<int> inside;  // positions beyond a shorter input wait for a longer one
        for (int position : hidden)
            if (position < m_result->keyLen())
                inside.append(position);
        if (auto checked = AttentionDisplay::hiddenKeys(inside, m_result->keyLen()); !checked) {
            m_message->showError(tr("Cannot hide '%1': %2").arg(m_result->keyTokens()[key].text, checked.error()),
                                 MessageBar::Subject::Export);
            return;
        }
    }
    m_heatmap_menu->setHiddenKeys(hidden);
}

void MainWindow::showTokenMenu(int key, const QPoint& global_position)
{
    if (!m_result || key < 0 || key >= m_result->keyLen())
        return;
    QMenu menu(this);
    const QString token = m_result->keyTokens()[key].text;
    const bool hidden = m_heatmap_menu->hiddenKeys().contains(key);
    QAction* toggle = menu.addAction(hidden ? tr("Show '%1' (key %2) in the heatmaps").arg(token).arg(key)
                                            : tr("Hide '%1' (key %2) in the heatmaps").arg(token).arg(key));
    toggle->setToolTip(
        tr("Hidden keys are drawn hatched with their label struck through; every query's weights "
           "are renormalised over the keys that remain"));
    QAction* show_all = menu.addAction(tr("Show every token"));
    show_all->setEnabled(!m_heatmap_menu->hiddenKeys().isEmpty());
    QAction* chosen = menu.exec(global_position);
    if (chosen == toggle)
        toggleHiddenKey(key);
    else if (chosen == show_all)
        m_heatmap_menu->setHiddenKeys({});
}

void MainWindow::showHiddenKeys()
{
    if (!m_result)
        return;
    const std::vector<bool> hidden = m_tabs->shownHiddenKeys();
    m_tokens->setHidden(m_result->isCross() ? std::vector<bool>{} : hidden);
    m_kv_tokens->setHidden(m_result->isCross() ? hidden : std::vector<bool>{});
}

}  // namespace attn
