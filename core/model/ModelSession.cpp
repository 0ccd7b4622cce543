#include "core/model/ModelSession.h"

#include "core/text/TokenPiece.h"

#include <QFileInfo>

namespace attn {

Result<std::unique_ptr<ModelSession>> ModelSession::open(const QString& dir)
{
    auto model = TransformerModel::load(dir);
    if (!model)
        return Error{model.error()};
    std::unique_ptr<ModelSession> session(new ModelSession);
    session->m_dir = QFileInfo(dir).absoluteFilePath();
    session->m_model = std::move(model).value();
    session->m_has_tokenizer_files = ModelTokenizer::hasFiles(dir);
    if (auto tokenizer = ModelTokenizer::load(dir); tokenizer)
        session->m_tokenizer = std::move(tokenizer).value();
    else
        session->m_tokenizer_problem = tokenizer.error();
    return session;
}

Result<std::vector<int>> ModelSession::encode(const QString& text) const
{
    if (!m_tokenizer)
        return Error{m_tokenizer_problem};
    std::vector<int> ids = m_tokenizer->encode(text);
    if (ids.empty())
        return Error{QStringLiteral("the sentence gives no tokens")};
    return ids;
}

QString ModelSession::tokenText(int id) const
{
    const QString text = m_tokenizer ? m_tokenizer->tokenText(id) : QString();
    return text.isEmpty() ? QString::number(id) : text;
}

QStringList ModelSession::tokenTexts(const std::vector<int>& ids) const
{
    QStringList texts;
    texts.reserve(qsizetype(ids.size()));
    for (int id : ids)
        texts << tokenText(id);
    return texts;
}

QStringList ModelSession::tokenLabels(const QStringList& texts) const
{
    const bool byte_level = byteLevelTokens();
    QStringList labels;
    labels.reserve(texts.size());
    TokenPiece previous;
    for (qsizetype i = 0; i < texts.size(); ++i) {
        previous = TokenPiece::of(texts[i], byte_level, i > 0 ? &previous : nullptr);
        labels << previous.label();
    }
    return labels;
}

std::vector<int> ModelSession::predictedPositions(const std::vector<int>& ids) const
{
    std::vector<int> positions;
    if (config().causal) {
        for (int i = 0; i < int(ids.size()); ++i)
            positions.push_back(i);
        return positions;
    }
    const std::optional<int> mask = m_tokenizer ? m_tokenizer->tokenId(QStringLiteral("[MASK]")) : std::nullopt;
    for (int i = 0; mask && i < int(ids.size()); ++i)
        if (ids[size_t(i)] == *mask)
            positions.push_back(i);
    return positions;
}

Result<std::shared_ptr<const ModelRun>> ModelSession::forwardWithCache(const std::vector<int>& ids,
                                                                       int selected_layer,
                                                                       bool keep_residual_stream) const
{
    const std::lock_guard lock(m_cache_mutex);
    return m_model->forward(ids, selected_layer, m_cache, keep_residual_stream);
}

}  // namespace attn
