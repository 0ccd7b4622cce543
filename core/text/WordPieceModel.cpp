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
    model->m_vocab = TokenVocabulary(vocab);
    model->m_options = options;
    return model;
}

std::optional<int> WordPieceModel::tokenToId(const QString& token) const
{
    return m_vocab.id(token);
}

QString WordPieceModel::idToToken(int id) const
{
    return m_vocab.token(id);
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
            if (const std::optional<int> id = m_vocab.id(candidate)) {
                pieces.append({*id, bounds[start], bounds[end]});
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
