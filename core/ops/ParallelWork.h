#pragma once

#include <cstdint>

namespace attn {

// Below this many multiply-adds (about 20 us of one core) a step of the forward pass, or a
// product, runs on one thread: a parallel region costs a few microseconds on an idle machine, and
// far more when the cores are shared and a thread of the team has to wait for its turn. (A lower
// threshold made the median pass faster but the mean slower: the waits grow.)
constexpr std::int64_t kParallelWork = std::int64_t(1) << 21;

}  // namespace attn
