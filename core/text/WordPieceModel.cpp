#include "core/text/WordPieceModel.h"

#include "core/base/MessageText.h"

namespace attn {

Result<std::unique_ptr<WordPieceModel>> WordPieceModel::create(const QHash<QString, int>& vocab, const Options& options)
{
    std::unique_ptr<WordPieceModel> model(new WordPieceModel);
    const auto unk = vocab.constFind(options.unkToken);
    if (unk == vocab.cend())
        return Error{
            QStringLiteral("the unknown token %1 is not in the vocabulary").arg(quotedForMessage(options.unkToken))};
    model->m_unkId = unk.value();
    model->m_vocab = vocab;
    model->m_options = options;
    // By id in a table of the vocabulary's size: ids may be sparse (a 20-token file with the id
    // 16777215 must not cost 16 million entries).
    model->m_tokens.reserve(vocab.size());
    for (auto it = vocab.cbegin(); it != vocab.cend(); ++it) {
        model->m_idLimit = std::max(model->m_idLimit, it.value() + 1);
        model->m_tokens.insert(it.value(), it.key());
    }
    return model;
}

std::optional<int> WordPieceModel::tokenToId(const QString& token) const
{
    const auto it = m_vocab.constFind(token);
    return it == m_vocab.cend() ? std::nullopt : std::optional<int>(it.value());
}

QString WordPieceModel::idToToken(int id) const
{
    return m_tokens.value(id);
}

QList<SubwordModel::Piece> WordPieceModel::tokenize(const QString& word) const
{
    if (word.isEmpty())
        return {};
    const QList<Piece> unknown{Piece{m_unkId, 0, word.size()}};
    // Code point boundaries: the limit counts code points, and a match never ends inside a
    // surrogate pair.
    QList<qsizetype> bounds;
    bounds.reserve(word.size() + 1);
    for (qsizetype i = 0; i < word.size(); i += (word.at(i).isHighSurrogate() && i + 1 < word.size()) ? 2 : 1)
        bounds.append(i);
    if (bounds.size() > m_options.maxInputCharsPerWord)
        return unknown;
    bounds.append(word.size());

    QList<Piece> pieces;
    qsizetype start = 0;  // index into bounds
    const qsizetype last = bounds.size() - 1;
    while (start < last) {
        bool found = false;
        for (qsizetype end = last; end > start; --end) {
            QString candidate = word.mid(bounds[start], bounds[end] - bounds[start]);
            if (start > 0)
                candidate.prepend(m_options.continuingSubwordPrefix);
            const auto id = m_vocab.constFind(candidate);
            if (id != m_vocab.cend()) {
                pieces.append({id.value(), bounds[start], bounds[end]});
                start = end;
                found = true;
                break;
            }
        }
        if (!found)
            return unknown;
    }
    return pieces;
}

}  // namespace attn
