#include "ui/workers/LatestJob.h"

namespace attn {

void LatestJobState::forgetOwner()
{
    const QMutexLocker lock(&m_mutex);
    m_owner = nullptr;
    m_owner_alive = false;
}

LatestJob::LatestJob(QObject* owner, QThreadPool& pool) : m_state(std::make_shared<LatestJobState>(owner)), m_pool(pool)
{
}

LatestJob::~LatestJob()
{
    m_state->forgetOwner();
}

}  // namespace attn
