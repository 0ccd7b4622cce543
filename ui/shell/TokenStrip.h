#pragma once

#include <QRect>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace attn {

// The tokens of the sentence as a strip of chips under the sentence field, numbered. A whole
// model's tokens are its subword pieces: a piece that continues a word is joined to the chip
// before, a leading space is a small mark, special tokens are drawn apart, and hovering a chip
// shows its id and what the model predicts there. Tokens that
// do not fit are summarised as "+N more". A query and a key can be highlighted (hover in the
// head view). The strip of the keys also shows which keys are padding (hatched, struck out), and
// a click on a chip asks to pad the key or to stop padding it (tokenClicked).
class TokenStrip : public QWidget {
    Q_OBJECT
public:
    explicit TokenStrip(QWidget* parent = nullptr);

    // A whole model's token, as the strip draws it.
    struct Piece {
        QString spelled;  // as the tokenizer spells it (convert_ids_to_tokens): "Ġcat", "##ing", "[CLS]"
        QString text;     // what the chip shows: the piece without its marks, bytes decoded
        int id = -1;
        bool leading_space = false;  // GPT-2's Ġ: a small ␣ mark before the text
        bool continuation = false;   // joined to the chip before (BERT's ##, a byte-level piece without Ġ)
        bool special = false;        // [CLS], [SEP], [MASK], <|endoftext|>: styled apart
        QString predictions;         // what the model predicts here (hover), or empty
    };
    // The piece of a token spelled `spelled`; byte_level: GPT-2's byte-level BPE spelling.
    // `previous`, when given, is the piece before (a byte-level piece without Ġ continues it).
    static Piece modelPiece(const QString& spelled, int id, bool byte_level, const Piece* previous = nullptr);

    void setTokens(const QStringList& tokens);
    // A whole model's tokens (tokens() are then their chip texts); setTokens goes back to words.
    void setPieces(const std::vector<Piece>& pieces);
    const std::vector<Piece>& pieces() const { return m_pieces; }
    // What hovering chip `index` shows: its text, and for a model's piece its spelling, id and predictions.
    QString toolTipFor(int index) const;
    const QStringList& tokens() const { return m_tokens; }
    void setHighlight(int query, int key);  // -1 for none
    int visibleCount() const { return m_visible; }
    // One flag per token, true = padded; empty = none. Only a strip of keys shows padding.
    void setPadding(const std::vector<bool>& padded);
    bool isPadded(int index) const { return size_t(index) < m_padded.size() && m_padded[size_t(index)]; }
    // One flag per token, true = hidden in the heatmaps (struck through, dashed); empty = none.
    void setHidden(const std::vector<bool>& hidden);
    bool isHidden(int index) const { return size_t(index) < m_hidden.size() && m_hidden[size_t(index)]; }
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
    // A chip was right-clicked (or the context-menu key pressed over it): where to show a menu.
    void tokenContextMenu(int index, const QPoint& global_position);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    QStringList m_tokens;
    std::vector<Piece> m_pieces;  // a model's tokens; empty for words
    int m_query = -1;
    int m_key = -1;
    int m_visible = 0;
    std::vector<bool> m_padded;
    std::vector<bool> m_hidden;
    bool m_clickable = false;
    bool m_stale = false;
    std::vector<QRect> m_chips;  // where the visible chips were drawn, for clicks
};

}  // namespace attn
