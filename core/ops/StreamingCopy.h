#pragma once

#include "core/ops/LinearColumns.h"

namespace attn {

// dst = src, written past the caches (non-temporal stores) where a row of dst has whole aligned
// vectors, plainly elsewhere: for results that go to memory and are not read again soon, whose
// ordinary stores would first read every line of dst from memory. Without AVX, a plain copy.
//   src (rows, cols), dst (rows, cols).
void copyStreaming(const ConstBlockRef& src, BlockRef dst);

}  // namespace attn
