#pragma once

#include "Tensor.h"

namespace attn {

using ConstBlockRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;  // a row-major block
using BlockRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

// out = x w + bias, the columns shared out in chunks among the threads of the enclosing OpenMP
// parallel region (an orphaned `omp for nowait`: every thread of the region must call it, and
// out is complete only after the region's closing barrier; outside a parallel region the one
// thread computes everything).
//   x (rows, inner), w (inner, cols), bias (cols) or nullptr, out (rows, cols).
// Each chunk of w and bias is checked to be finite first (which also brings it into the cache for
// the product); the function returns false, leaving such chunks of out unset, if one is not.
//
// Why not simply out = x * w: at short sequence lengths the projections are products of a few rows
// with a large weight matrix. Eigen copies (packs) the whole weight matrix on every call and will
// not split such products across threads; for those, a kernel reading the weights in place, with
// the columns split across both cores, is 2-3 times faster. Longer inputs go through Eigen's
// cache-blocked product, still one column slice per thread.
bool linearColumns(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out);

// out = x w on the calling thread, reading w in place: no packing copy of w and no zeroing of
// out first, as Eigen's product does. For few rows of x (up to a few hundred) or a short inner
// dimension, such as a head's scores Q_h K_h^T with head_dim 64.
//   x (rows, inner), w (inner, cols), out (rows, cols).
void directProduct(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out);
// The same over the whole tiles of columns only; returns how many columns it computed.
Eigen::Index directProductTiles(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out);

}  // namespace attn
