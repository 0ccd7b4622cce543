#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace attn {

// Third step of a subword tokenizer: turns one word into vocabulary ids (BPE, WordPiece).
class SubwordModel {
public:
    struct Piece {
        int id = 0;
        qsizetype begin = 0;  // UTF-16 range within the word
        qsizetype end = 0;
    };

    virtual ~SubwordModel() = default;
    // Thread-safe: a model may be shared by threads that tokenise at the same time.
    virtual QList<Piece> tokenize(const QString& word) const = 0;
    virtual std::optional<int> tokenToId(const QString& token) const = 0;
    // Empty when no token has that id.
    virtual QString idToToken(int id) const = 0;
    // One past the highest id.
    virtual int idLimit() const = 0;
};

}  // namespace attn
