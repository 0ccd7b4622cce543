#pragma once

#include "core/base/Tensor.h"

namespace attn {

// transformers' LlamaRMSNorm (also Qwen2's and Mistral's), row by row, computed in float32 or
// wider: y = x * rsqrt(mean(x^2) + eps) * weight.
//   x, out (rows, width); weight (width). out may be x itself.
void rmsNorm(const ConstMatrixRef& x, const Eigen::Ref<const RowVector>& weight, float eps, MatrixRef out);

}  // namespace attn
