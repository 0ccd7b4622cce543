#include "ui/controller/OpenModel.h"

#include <QFileInfo>

namespace attn {

QString OpenModel::tokenText(int id) const
{
    const QString text = tokenizer ? tokenizer->tokenText(id) : QString();
    return text.isEmpty() ? QString::number(id) : text;
}

Result<std::shared_ptr<const OpenModel>> PendingModel::get()
{
    const std::lock_guard lock(m_mutex);
    if (!m_done) {
        m_done = true;
        const QString name = QFileInfo(m_dir).fileName();
        auto opened = std::make_shared<OpenModel>();
        opened->dir = QFileInfo(m_dir).absoluteFilePath();
        auto model = TransformerModel::load(m_dir);
        if (!model) {
            m_error = QStringLiteral("%1: %2").arg(name, model.error());
        } else if (!ModelTokenizer::hasFiles(m_dir)) {
            // Token ids only (the Llama family's folders, for one): the window's Token ids input.
            opened->model = std::move(model).value();
            m_model = std::move(opened);
        } else if (auto tokenizer = ModelTokenizer::load(m_dir); !tokenizer) {
            m_error = QStringLiteral("%1: %2").arg(name, tokenizer.error());
        } else {
            opened->model = std::move(model).value();
            opened->tokenizer = std::move(tokenizer).value();
            m_model = std::move(opened);
        }
    }
    if (!m_model)
        return Error{m_error};
    return m_model;
}

}  // namespace attn
