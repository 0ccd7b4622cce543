#pragma once

#include "core/ops/LinearColumns.h"

namespace attn {

// dst = src^T, 8 x 8 blocks at a time transposed in registers (with AVX; element by element
// without it and at the edges). Eigen's assignment of a transposed block goes element by element,
// reading down columns: with rows a multiple of 2 KiB apart (d_model 512) those reads share a
// few L1 sets.
//   src (rows, cols), dst (cols, rows).
void transposeInto(const ConstBlockRef& src, BlockRef dst);

}  // namespace attn
