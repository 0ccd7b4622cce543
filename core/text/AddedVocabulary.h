#pragma once

#include "core/text/NormalizedText.h"

#include <QHash>
#include <QList>
#include <QString>

namespace attn {

// Tokens matched in the text before any other step and never split: special tokens such as
// <|endoftext|> or [MASK], and tokens added to a vocabulary after training. As in Hugging Face:
// - a token with `normalized` false is looked for in the raw input, one with `normalized` true
//   in each normalised piece between those (its content normalised the same way);
// - at each position the longest token wins, and the leftmost match comes first;
// - singleWord keeps a match only when no word character touches it on either side;
// - lstrip / rstrip make the match take in the white space to its left / right.
class AddedVocabulary {
public:
    struct Entry {
        int id = 0;
        QString content;
        bool special = false;
        bool singleWord = false;
        bool lstrip = false;
        bool rstrip = false;
        bool normalized = false;
    };

    // A piece of text: either an added token's id, or text for the normal pipeline (id -1).
    struct Piece {
        int id = -1;
        NormalizedText text;
    };

    void add(const Entry& entry);
    const QList<Entry>& entries() const { return m_entries; }
    bool isEmpty() const { return m_entries.isEmpty(); }

    // Normalised contents of the `normalized` tokens; the tokenizer sets them once its normalizer
    // is known.
    void setNormalizedContents(const QHash<int, QString>& contentById) { m_normalizedContent = contentById; }

    QList<Piece> splitRaw(const NormalizedText& text) const;
    QList<Piece> splitNormalized(const NormalizedText& text) const;

    const Entry* find(int id) const;

private:
    QList<Piece> split(const NormalizedText& text, bool normalizedTokens) const;

    QList<Entry> m_entries;
    QHash<int, qsizetype> m_indexById;
    QHash<int, QString> m_normalizedContent;
};

}  // namespace attn
