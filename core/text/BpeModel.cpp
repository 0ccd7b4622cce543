#include "core/text/BpeModel.h"

#include "core/base/MessageText.h"

#include <QMutexLocker>

#include <queue>
#include <vector>

namespace attn {
namespace {

// Hugging Face caches words shorter than 256 bytes, at most 10,000 of them; a full cache stops
// growing rather than evicting, which keeps lookups cheap and bounds memory.
constexpr qsizetype kCacheCapacity = 10000;
constexpr qsizetype kLongestCachedWord = 256;

struct Symbol {
    int id;
    qsizetype begin;  // UTF-16 range in the word
    qsizetype end;
    int prev;
    int next;
    bool removed = false;
};

struct Candidate {
    int rank;
    int pos;
    int id;
    // std::priority_queue puts the greatest first: the greatest here is the lowest rank, then the
    // leftmost position.
    bool operator<(const Candidate& other) const { return rank != other.rank ? rank > other.rank : pos > other.pos; }
};

}  // namespace

Result<std::unique_ptr<BpeModel>> BpeModel::create(const QHash<QString, int>& vocab, const QList<Merge>& merges,
                                                   const Options& options)
{
    std::unique_ptr<BpeModel> model(new BpeModel);
    model->m_vocab = TokenVocabulary(vocab);
    model->m_options = options;

    if (!options.unkToken.isEmpty()) {
        const auto unk = vocab.constFind(options.unkToken);
        if (unk == vocab.cend())
            return Error{QStringLiteral("the unknown token %1 is not in the vocabulary")
                             .arg(quotedForMessage(options.unkToken))};
        model->m_unkId = unk.value();
    }

    model->m_merges.reserve(merges.size());
    for (qsizetype rank = 0; rank < merges.size(); ++rank) {
        const auto& [left, right] = merges[rank];
        const QString merged = left + right;
        for (const QString* part : {&left, &right, &merged})
            if (!vocab.contains(*part))
                return Error{QStringLiteral("merge %1 (\"%2 %3\") needs %4, which is not in the vocabulary")
                                 .arg(rank + 1)
                                 .arg(escapedForMessage(left), escapedForMessage(right), quotedForMessage(*part))};
        // A repeated pair takes its last rank, as in Hugging Face's merge table.
        model->m_merges.insert(pairKey(vocab.value(left), vocab.value(right)), {int(rank), vocab.value(merged)});
    }
    return model;
}

std::optional<int> BpeModel::tokenToId(const QString& token) const
{
    return m_vocab.id(token);
}

QString BpeModel::idToToken(int id) const
{
    return m_vocab.token(id);
}

QList<SubwordModel::Piece> BpeModel::tokenize(const QString& word) const
{
    if (word.isEmpty())
        return {};
    if (m_options.ignoreMerges) {
        if (const auto id = tokenToId(word))
            return {Piece{*id, 0, word.size()}};
    }
    {
        QMutexLocker lock(&m_cacheMutex);
        const auto hit = m_cache.constFind(word);
        if (hit != m_cache.cend())
            return hit.value();
    }
    QList<Piece> pieces = merge(word);
    if (word.size() < kLongestCachedWord) {
        QMutexLocker lock(&m_cacheMutex);
        if (m_cache.size() < kCacheCapacity)
            m_cache.insert(word, pieces);
    }
    return pieces;
}

std::optional<QList<int>> BpeModel::byteTokens(const QString& character) const
{
    if (!m_options.byteFallback)
        return std::nullopt;
    QList<int> ids;
    for (const char byte : character.toUtf8()) {
        const QString hex = QString::number(quint8(byte), 16).toUpper().rightJustified(2, u'0');
        const std::optional<int> id = m_vocab.id(QStringLiteral("<0x") + hex + u'>');
        if (!id)
            return std::nullopt;
        ids.append(*id);
    }
    return ids;
}

QList<SubwordModel::Piece> BpeModel::merge(const QString& word) const
{
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    auto add = [&symbols](int id, qsizetype begin, qsizetype end) {
        const int index = int(symbols.size());
        if (index > 0)
            symbols.back().next = index;
        symbols.push_back({id, begin, end, index - 1, -1});
    };

    // One symbol per character, unknown characters as the unknown token (fused or not).
    bool pendingUnk = false;
    qsizetype unkBegin = 0, unkEnd = 0;
    for (qsizetype i = 0; i < word.size();) {
        const qsizetype width = (word.at(i).isHighSurrogate() && i + 1 < word.size()) ? 2 : 1;
        const QString character = word.mid(i, width);
        if (const std::optional<int> id = m_vocab.id(character)) {
            if (pendingUnk) {
                add(m_unkId, unkBegin, unkEnd);
                pendingUnk = false;
            }
            add(*id, i, i + width);
        } else if (const std::optional<QList<int>> bytes = byteTokens(character)) {
            // As Hugging Face does, a pending unknown token stays pending across the bytes.
            for (int byteId : *bytes)
                add(byteId, i, i + width);
        } else if (m_unkId >= 0) {
            if (pendingUnk && m_options.fuseUnk) {
                unkEnd = i + width;
            } else {
                if (pendingUnk)
                    add(m_unkId, unkBegin, unkEnd);
                pendingUnk = true;
                unkBegin = i;
                unkEnd = i + width;
            }
        }
        i += width;
    }
    if (pendingUnk)
        add(m_unkId, unkBegin, unkEnd);

    std::priority_queue<Candidate> queue;
    auto propose = [&](int pos) {
        const int next = symbols[pos].next;
        if (next < 0)
            return;
        const auto merge = m_merges.constFind(pairKey(symbols[pos].id, symbols[next].id));
        if (merge != m_merges.cend())
            queue.push({merge->rank, pos, merge->id});
    };
    for (int pos = 0; pos + 1 < int(symbols.size()); ++pos)
        propose(pos);

    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[top.pos];
        if (left.removed || left.next < 0)
            continue;
        Symbol& right = symbols[left.next];
        // An entry made stale by an earlier merge of either symbol no longer names this pair.
        const auto current = m_merges.constFind(pairKey(left.id, right.id));
        if (current == m_merges.cend() || current->id != top.id)
            continue;
        left.id = top.id;
        left.end = right.end;
        left.next = right.next;
        right.removed = true;
        if (left.next >= 0)
            symbols[left.next].prev = top.pos;
        if (left.prev >= 0)
            propose(left.prev);
        propose(top.pos);
    }

    QList<Piece> pieces;
    for (const Symbol& s : symbols)
        if (!s.removed)
            pieces.append({s.id, s.begin, s.end});
    return pieces;
}

}  // namespace attn
