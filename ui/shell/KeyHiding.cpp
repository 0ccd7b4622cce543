#include "ui/shell/KeyHiding.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"

#include <QAction>
#include <QMenu>
#include <QScopedValueRollback>

namespace attn {

KeyHiding::KeyHiding(MainWindow& window) : QObject(&window), m_window(window)
{
    connect(window.heatmapMenu(), &HeatmapMenu::hiddenKeysChanged, this, &KeyHiding::record);
    connect(window.controller(), &AttentionController::modelOpened, this, &KeyHiding::forgetTokens);
    connect(window.controller(), &AttentionController::modelClosed, this, &KeyHiding::forgetTokens);
}

namespace {

// Which occurrence of its text the key at `position` is (0: the first).
int occurrenceOf(const TokenList& keys, int position)
{
    int occurrence = 0;
    for (int i = 0; i < position; ++i)
        if (keys[size_t(i)].text == keys[size_t(position)].text)
            ++occurrence;
    return occurrence;
}

}  // namespace

void KeyHiding::record(const QList<int>& positions)
{
    if (m_applying)
        return;
    const auto result = m_window.result();
    // Before a model's first input the result shown is another's: its tokens are not the ones meant.
    const bool bind = result && m_window.controller()->openingModelDir().isEmpty();
    m_tokens.clear();
    m_positions.clear();
    for (int position : positions) {
        if (bind && position < result->keyLen()) {
            const TokenList& keys = result->keyTokens();
            m_tokens.append({keys[size_t(position)].text, occurrenceOf(keys, position)});
        } else {
            m_positions.append(position);
        }
    }
}

void KeyHiding::followResult(const AttentionResult& result)
{
    if (!m_window.controller()->openingModelDir().isEmpty())
        return;  // the model's own input is on its way
    // Positions this input has become its tokens; longer ones wait.
    QList<int> waiting;
    for (int position : std::as_const(m_positions)) {
        if (position < result.keyLen())
            m_tokens.append({result.keyTokens()[size_t(position)].text, occurrenceOf(result.keyTokens(), position)});
        else
            waiting.append(position);
    }
    m_positions = waiting;
    // Where the tokens are now; those this input does not have are forgotten.
    const TokenList& keys = result.keyTokens();
    QList<int> shown;
    QList<HiddenToken> kept;
    for (const HiddenToken& token : std::as_const(m_tokens)) {
        int seen = 0;
        for (int i = 0; i < int(keys.size()); ++i)
            if (keys[size_t(i)].text == token.text && seen++ == token.occurrence) {
                shown.append(i);
                kept.append(token);
                break;
            }
    }
    m_tokens = kept;
    shown += m_positions;
    const QScopedValueRollback<bool> applying(m_applying, true);
    m_window.heatmapMenu()->setHiddenKeys(shown);
}

void KeyHiding::forgetTokens()
{
    if (m_tokens.isEmpty())
        return;
    m_tokens.clear();
    const QScopedValueRollback<bool> applying(m_applying, true);
    m_window.heatmapMenu()->setHiddenKeys(m_positions);
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
