#pragma once

#include "core/attention/AttentionOptions.h"

#include <QMetaObject>
#include <QObject>
#include <QThreadPool>

#include <omp.h>

#include <utility>

namespace attn {

// Raw scores (for the walkthrough) only while they are small: T_q T_kv floats per head.
inline TraceDetail traceDetailFor(qint64 query_len, int num_heads, qint64 key_len = -1)
{
    const qint64 keys = key_len < 0 ? query_len : key_len;
    return query_len * keys * num_heads <= (qint64(1) << 19) ? TraceDetail::Full : TraceDetail::Probabilities;
}

// Runs `work` on the GUI thread when it is small, on one core: OpenMP's fork and barrier cost
// more than the work itself, and on a loaded machine a barrier can wait a whole scheduler slice
// for a descheduled thread. The worker keeps its cores for large inputs.
template <typename Work>
auto onOneCore(Work&& work)
{
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    auto outcome = work();
    omp_set_num_threads(threads);
    return outcome;
}

// Runs `work` on a pool thread with the worker's OpenMP setting and hands a result that is not
// stale to `deliver` on the GUI thread, in the order the queued calls arrive.
template <typename Work, typename Deliver>
void startOnWorker(QThreadPool& pool, QObject* receiver, int threads, Work work, Deliver deliver)
{
    pool.start([receiver, threads, work = std::move(work), deliver = std::move(deliver)] {
        omp_set_num_threads(threads);  // this pool thread's own OpenMP setting
        auto outcome = work();
        if (outcome.skipped)
            return;
        QMetaObject::invokeMethod(
            receiver, [deliver, outcome = std::move(outcome)]() mutable { deliver(std::move(outcome)); },
            Qt::QueuedConnection);
    });
}

}  // namespace attn
