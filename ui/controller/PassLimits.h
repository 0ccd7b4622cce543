#pragma once

#include <QtGlobal>

#include <omp.h>

#include <cstdint>

namespace attn {

// How the controller's passes use the machine: which run at once on the GUI thread and which on
// the worker, with how many OpenMP threads, and what a result may take.
struct PassLimits {
    // Work (in floating-point operations) above which a pass leaves the GUI thread.
    double async_threshold = 1e8;
    // The worker's OpenMP threads: one core fewer than the machine has unless chosen (then for
    // every pass), and every core for a pass of kAllCoresFlops or more.
    int worker_threads = defaultWorkerThreads();
    bool worker_threads_chosen = false;
    std::int64_t memory_budget = 0;  // 0: MemoryPlan's default
    std::int64_t picture_cells = 0;  // what one heatmap holds at most (MemoryRequest::view_cells)
    int kept_head = 0;               // a long input's head whose weights are kept (blockFactorFor)
    std::int64_t long_route_bytes = std::int64_t(512) << 20;  // AttentionPipeline::kLongRouteBytes

    static constexpr double kAllCoresFlops = 5e10;
    static int defaultWorkerThreads();
    int workerThreadsFor(double flops) const;
    std::int64_t memoryBudget() const;
};

// Runs `work` here on one core: for a small pass OpenMP's fork and barrier cost more than the
// work itself, and on a loaded machine a barrier can wait a whole scheduler slice for a
// descheduled thread.
template <typename Work>
auto onOneCore(Work&& work)
{
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    auto outcome = work();
    omp_set_num_threads(threads);
    return outcome;
}

// `work` as a job for the worker pool that first gives its pool thread `threads` OpenMP threads.
template <typename Work>
auto withWorkerThreads(int threads, Work work)
{
    return [threads, work = std::move(work)](const auto&) {
        omp_set_num_threads(threads);  // this pool thread's own OpenMP setting
        return work();
    };
}

}  // namespace attn
