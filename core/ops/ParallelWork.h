#pragma once

#include <cstdint>

namespace attn {

// Below this many multiply-adds (about 20 us of one core) a step of the forward pass, or a
// product, runs on one thread: a parallel region costs a few microseconds on an idle machine, and
// far more when the cores are shared and a thread of the team has to wait for its turn. (1 << 19
// made the median pass at T=128, d_model 64 faster but the mean that QBENCHMARK reports slower:
// 0.246 -> 0.273 ms.)
constexpr std::int64_t kParallelWork = std::int64_t(1) << 21;

}  // namespace attn
