#pragma once

#include "core/ops/LinearColumns.h"

namespace attn {

// out = x w + bias for a whole layer of a model: linearColumns in a parallel region of its own
// when the product is large enough to share out.
//   x (rows, inner), w (inner, cols), bias (cols) or nullptr, out (rows, cols).
// Returns false, with out incomplete, when w or bias holds a NaN or an infinity.
bool linear(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out);

}  // namespace attn
