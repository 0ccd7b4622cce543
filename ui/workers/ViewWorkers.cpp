#include "ui/workers/ViewWorkers.h"

#include <QThreadPool>

namespace attn {

namespace {
Q_GLOBAL_STATIC(QThreadPool, pool)
}  // namespace

QThreadPool& viewWorkers()
{
    return *pool();
}

}  // namespace attn
