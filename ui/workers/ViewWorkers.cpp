#include "ui/workers/ViewWorkers.h"

namespace attn {

namespace {
Q_GLOBAL_STATIC(QThreadPool, pool)
}  // namespace

QThreadPool& viewWorkers()
{
    return *pool();
}

OwnWorkers::OwnWorkers(int threads)
{
    setMaxThreadCount(threads);
}

OwnWorkers::~OwnWorkers()
{
    clear();
    waitForDone();
}

}  // namespace attn
