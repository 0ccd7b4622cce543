#pragma once

#include <QStringList>
#include <QWidget>

namespace attn {

// The tokens of the sentence as a strip of chips under the sentence field, numbered. Tokens that
// do not fit are summarised as "+N more". A query and a key can be highlighted (hover in the
// head view).
class TokenStrip : public QWidget {
    Q_OBJECT
public:
    explicit TokenStrip(QWidget* parent = nullptr);

    void setTokens(const QStringList& tokens);
    const QStringList& tokens() const { return m_tokens; }
    void setHighlight(int query, int key);  // -1 for none
    int visibleCount() const { return m_visible; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QStringList m_tokens;
    int m_query = -1;
    int m_key = -1;
    int m_visible = 0;
};

}  // namespace attn
