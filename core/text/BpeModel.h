#pragma once

#include "core/base/Result.h"
#include "core/text/SubwordModel.h"
#include "core/text/TokenVocabulary.h"

#include <QHash>
#include <QMutex>

#include <memory>
#include <utility>

namespace attn {

// Byte-pair encoding as Hugging Face's BPE model applies it: a word starts as one symbol per
// character, then the merge of lowest rank among all adjacent pairs is applied, leftmost first
// when the same pair occurs twice, until no adjacent pair has a merge. A character outside the
// vocabulary becomes the unknown token, or is dropped when there is none (byte-level vocabularies
// hold every byte, so it never happens to them). Results are cached per word.
class BpeModel : public SubwordModel {
public:
    struct Options {
        QString unkToken;           // empty: none
        bool fuseUnk = false;       // a run of unknown characters is one unknown token
        bool ignoreMerges = false;  // a word that is in the vocabulary is one token, unmerged
        bool byteFallback = false;  // a character outside the vocabulary becomes its UTF-8 bytes "<0xE2>"…
    };
    using Merge = std::pair<QString, QString>;

    // Merges in rank order. Refused when a merge names, or makes, a token outside the
    // vocabulary, or when the unknown token is not in it.
    static Result<std::unique_ptr<BpeModel>> create(const QHash<QString, int>& vocab, const QList<Merge>& merges,
                                                    const Options& options);

    QList<Piece> tokenize(const QString& word) const override;
    std::optional<int> tokenToId(const QString& token) const override;
    QString idToToken(int id) const override;
    int idLimit() const override { return m_vocab.idLimit(); }

private:
    struct MergeTarget {
        int rank;
        int id;
    };
    BpeModel() = default;
    QList<Piece> merge(const QString& word) const;
    std::optional<QList<int>> byteTokens(const QString& character) const;  // with byte fallback
    static quint64 pairKey(int left, int right) { return (quint64(quint32(left)) << 32) | quint32(right); }

    TokenVocabulary m_vocab;
    QHash<quint64, MergeTarget> m_merges;
    Options m_options;
    int m_unkId = -1;

    mutable QMutex m_cacheMutex;
    mutable QHash<QString, QList<Piece>> m_cache;
};

}  // namespace attn
