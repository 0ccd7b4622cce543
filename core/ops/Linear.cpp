#include "core/ops/Linear.h"

#include <atomic>
#include <cstdint>

namespace attn {
namespace {

// Below this many multiply-adds the product runs on one thread (the engine's threshold: a
// parallel region costs more than it saves on a product of about 20 us).
constexpr std::int64_t kParallelWork = std::int64_t(1) << 21;

}  // namespace

bool linear(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out)
{
    const std::int64_t work = std::int64_t(x.rows() + 1) * w.rows() * w.cols();
    std::atomic<bool> finite = true;
#pragma omp parallel if (work >= kParallelWork)
    if (!linearColumns(x, w, bias, out))
        finite.store(false, std::memory_order_relaxed);
    return finite;
}

}  // namespace attn
