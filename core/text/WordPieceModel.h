#pragma once

#include "core/base/Result.h"
#include "core/text/SubwordModel.h"
#include "core/text/TokenVocabulary.h"

#include <QHash>

#include <memory>

namespace attn {

// WordPiece as Hugging Face's model applies it: greedy longest match first. The longest prefix of
// the word that is in the vocabulary is the first token; the rest is matched the same way with
// the continuation prefix ("##ing"). A word with a part no token matches, or longer than
// maxInputCharsPerWord code points, is a single unknown token.
class WordPieceModel : public SubwordModel {
public:
    struct Options {
        QString unkToken = QStringLiteral("[UNK]");
        QString continuingSubwordPrefix = QStringLiteral("##");
        int maxInputCharsPerWord = 100;
    };

    // Refused when the unknown token is not in the vocabulary.
    static Result<std::unique_ptr<WordPieceModel>> create(const QHash<QString, int>& vocab, const Options& options);

    QList<Piece> tokenize(const QString& word) const override;
    std::optional<int> tokenToId(const QString& token) const override;
    QString idToToken(int id) const override;
    int idLimit() const override { return m_vocab.idLimit(); }

private:
    WordPieceModel() = default;

    TokenVocabulary m_vocab;
    Options m_options;
    int m_unkId = 0;
};

}  // namespace attn
