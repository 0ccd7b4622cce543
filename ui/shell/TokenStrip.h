#pragma once

#include <QRect>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace attn {

// The tokens of the sentence as a strip of chips under the sentence field, numbered. Tokens that
// do not fit are summarised as "+N more". A query and a key can be highlighted (hover in the
// head view). The strip of the keys also shows which keys are padding (hatched, struck out), and
// a click on a chip asks to pad the key or to stop padding it (tokenClicked).
class TokenStrip : public QWidget {
    Q_OBJECT
public:
    explicit TokenStrip(QWidget* parent = nullptr);

    void setTokens(const QStringList& tokens);
    const QStringList& tokens() const { return m_tokens; }
    void setHighlight(int query, int key);  // -1 for none
    int visibleCount() const { return m_visible; }
    // One flag per token, true = padded; empty = none. Only a strip of keys shows padding.
    void setPadding(const std::vector<bool>& padded);
    bool isPadded(int index) const { return size_t(index) < m_padded.size() && m_padded[size_t(index)]; }
    // Chips react to clicks (tokenClicked) and say so in their tooltip.
    void setClickable(bool clickable);
    // The tokens are those of an earlier input than the sentence field's (it was refused): the
    // chips are faded and the strip says "previous input".
    void setStale(bool stale);
    bool isStale() const { return m_stale; }
    // The chip under a point of the widget, or -1 (hidden behind "+N more", or no chip there).
    int tokenAt(const QPoint& position) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void tokenClicked(int index);  // a chip was clicked (only when clickable)

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QStringList m_tokens;
    int m_query = -1;
    int m_key = -1;
    int m_visible = 0;
    std::vector<bool> m_padded;
    bool m_clickable = false;
    bool m_stale = false;
    std::vector<QRect> m_chips;  // where the visible chips were drawn, for clicks
};

}  // namespace attn
