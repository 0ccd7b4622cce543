#pragma once

#include "core/attention/AttentionWeights.h"
#include "core/base/Result.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

#include <vector>

namespace attn {

// Value-weighted attention (Kobayashi et al. 2020, "Attention is not only a weight"):
//   ||A_ij f^h(x_j)||_2 = A_ij ||f^h(x_j)||_2,   f^h(x_j) = (x_j W_V^h + b_V^h) W_O^h,
// W_O^h the head's rows of the output projection (none: the identity, the output being the
// concatenation of the heads), v from the head's key/value group. Since A_ij >= 0 only the norms
// ||f^h(x_j)|| (H, T_kv) are computed: ||v W_O^h||^2 = v (W_O^h W_O^h^T) v^T with the (D, D) Gram
// matrix in double, H D^2 (C + T) per layer instead of H T D C. The views and the JSON multiply
// them into the weights a row at a time.
class AttentionNorms {
public:
    // values (T_kv, kv_dim) with their bias; out_proj (H D, C) or empty.   -> (H, T_kv)
    static Matrix valueNorms(const ConstMatrixRef& values, int num_heads, int num_kv_heads, const Matrix& out_proj);

    // Every layer's value norms from a model run: V = layer_inputs[l] W_V + b_V (the kept
    // attention inputs; no second pass).   -> L x (H, T)
    static Result<std::vector<Matrix>> ofModel(const ModelConfig& config, const ModelWeights& weights,
                                               const ModelRun& run);
};

}  // namespace attn
