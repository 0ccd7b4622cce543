#include "ui/controller/PendingWeights.h"

#include "core/pipeline/AttentionPipeline.h"

#include <QFileInfo>

namespace attn {

PendingWeights::PendingWeights(const RunSettings& config, SettingField error_field)
    : m_config(config), m_error_field(error_field)
{
}

Result<std::shared_ptr<const LoadedWeights>> PendingWeights::get()
{
    const std::lock_guard lock(m_mutex);
    if (!m_done) {
        m_done = true;
        auto built = AttentionPipeline::buildWeights(m_config);
        if (built) {
            m_weights = std::make_shared<const LoadedWeights>(std::move(built).value());
        } else {
            m_error = built.error();
            const QString name = QFileInfo(m_config.weights_file).fileName();
            if (readsFile() && !m_error.contains(name))
                m_error = QStringLiteral("%1: %2").arg(name, m_error);
        }
    }
    if (!m_weights)
        return Error{m_error};
    return m_weights;
}

}  // namespace attn
