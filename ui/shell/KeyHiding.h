#pragma once

#include <QList>
#include <QObject>
#include <QString>

class QPoint;

namespace attn {

class MainWindow;
struct AttentionResult;

// Keys hidden in the heatmaps from the token chips: a chip's context menu hides its key or shows
// it again (hiding the last key shown is refused in the message bar), and the chips of hidden keys
// are marked on the strip that shows the keys.
// A hidden key is a token, not a position: its text and which of that text's occurrences it is
// ("the", the second). When the input changes, the views hide where that token is now
// (followResult), and forget it when it is gone; opening or closing a model forgets them all.
// Positions given where no input is shown yet (the command line's --hide-tokens, a model still
// opening) or beyond it stay positions until an input has them.
class KeyHiding : public QObject {
    Q_OBJECT
public:
    explicit KeyHiding(MainWindow& window);

    void toggle(int key);
    void showMenu(int key, const QPoint& global_position);
    void showOnStrips();  // the heatmap menu's hidden keys, on the keys' strip
    // A new result: the hidden tokens' positions in it, set on the heatmap menu (before the views
    // draw it).
    void followResult(const AttentionResult& result);

    struct HiddenToken {
        QString text;
        int occurrence = 0;  // 0: the first key with this text
    };
    const QList<HiddenToken>& hiddenTokens() const { return m_tokens; }

private:
    void record(const QList<int>& positions);  // the menu's hidden keys, as tokens where they can be
    void forgetTokens();

    MainWindow& m_window;
    QList<HiddenToken> m_tokens;
    QList<int> m_positions;   // hidden before an input had them
    bool m_applying = false;  // the menu's keys being set from m_tokens: nothing to record
};

}  // namespace attn
