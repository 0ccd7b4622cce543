#pragma once

#include "core/base/Tensor.h"

namespace attn {

// torch.nn.LayerNorm over the last dimension, row by row:
//   y = (x - mean) / sqrt(var + eps) * gamma + beta,   var the biased variance (divided by width).
//   x, out (rows, width); gamma, beta (width). out may be x itself.
void layerNorm(const ConstMatrixRef& x, const Eigen::Ref<const RowVector>& gamma,
               const Eigen::Ref<const RowVector>& beta, float eps, MatrixRef out);

}  // namespace attn
