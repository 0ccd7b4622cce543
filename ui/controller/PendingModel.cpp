#include "ui/controller/PendingModel.h"

#include <QFileInfo>

namespace attn {

Result<std::shared_ptr<const ModelSession>> PendingModel::get()
{
    const std::lock_guard lock(m_mutex);
    if (!m_done) {
        m_done = true;
        auto session = ModelSession::open(m_dir);
        if (session)
            m_session = std::move(session).value();
        else
            m_error = QStringLiteral("%1: %2").arg(QFileInfo(m_dir).fileName(), session.error());
    }
    if (!m_session)
        return Error{m_error};
    return m_session;
}

}  // namespace attn
