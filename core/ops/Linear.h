#pragma once

#include "core/ops/LinearColumns.h"

namespace attn {

// out = x w + bias for a whole layer of a model, the columns shared out among the threads when
// the product is large enough: as linearColumns, but in a parallel region of its own and with the
// finiteness of w and bias checked only when asked (a model checks each weight once, not on
// every pass).
//   x (rows, inner), w (inner, cols), bias (cols) or nullptr, out (rows, cols).
// Returns false, leaving out unset, when asked to check and w or bias holds a NaN or an infinity.
bool linear(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out, bool check_finite = true);

}  // namespace attn
