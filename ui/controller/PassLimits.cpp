#include "ui/controller/PassLimits.h"

#include "core/pipeline/MemoryPlan.h"

#include <algorithm>

namespace attn {

int PassLimits::defaultWorkerThreads()
{
    // The GUI thread keeps a core, and no OpenMP barrier waits for a thread the GUI or another
    // process has pushed off the CPU: on a shared 2-core machine one worker thread makes a
    // T = 512 keystroke faster than two.
    return std::clamp(omp_get_num_procs() - 1, 1, std::max(1, omp_get_max_threads()));
}

int PassLimits::workerThreadsFor(double flops) const
{
    // A pass of seconds (a long input) takes every core: the GUI thread has little to do until
    // its result arrives, and the first picture of 8,192 tokens x 12 heads came 1.6 times sooner
    // on two cores than on one. Shorter passes leave a core to the GUI, as typing wants.
    if (flops >= kAllCoresFlops && !worker_threads_chosen)
        return std::max(1, std::min(omp_get_num_procs(), omp_get_max_threads()));
    return worker_threads;
}

std::int64_t PassLimits::memoryBudget() const
{
    return memory_budget > 0 ? memory_budget : MemoryPlan::defaultBudget();
}

}  // namespace attn
