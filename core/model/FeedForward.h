#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelWeights.h"

namespace attn {

// The error of a product that met NaN or infinite values in weight `w` (read in place, so checked
// where it is used).
Error notFinite(const WeightMatrix& w);

// The two-layer MLP of GPT-2 (GPT2MLP), the BERT family (intermediate + output dense) and GPT-NeoX
// (GPTNeoXMLP): MLP(h) = act(h W_in + b_in) W_out + b_out.   h (T, C) -> (T, I) -> (T, C)
Result<Matrix> feedForward(const ModelConfig& config, const LayerWeights& w, const Matrix& h);

// LlamaMLP (also Qwen2's and Mistral's): down_proj(act_fn(gate_proj(h)) * up_proj(h)).
//   h (T, C) -> (T, I) -> (T, C)
Result<Matrix> gatedFeedForward(const ModelConfig& config, const LayerWeights& w, const Matrix& h);

}  // namespace attn
