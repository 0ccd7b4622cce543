#pragma once

#include "core/base/Result.h"
#include "core/lens/LogitMetric.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

#include <vector>

namespace attn {

// Direct logit attribution at one position: the residual there before the final norm split into
// its parts, each normed with the residual's own statistics and dotted with
// u = W_U[TARGET] - W_U[FOIL] (TransformerLens's logit_attrs over decompose_resid /
// stack_head_results, the final norm frozen).
struct AttributionResult {
    int position = 0;
    MetricTokens tokens;
    double logit = 0.0;  // the model's own logit (difference) at the position
    double embed = 0.0;  // token (+ learned position) embeddings
    int num_layers = 0;
    int num_heads = 0;
    // (L, H) row-major: o[l][h] = sum_j A[l][h][P][j] v_j^h W_O^h; a head the pass replaced
    // (ModelRun::replaced_heads, an ablation): its replaced z at P times W_O^h
    std::vector<double> heads;
    std::vector<double> attn_bias;  // (L): each output projection's bias (0 without one)
    std::vector<double> mlp;        // (L): each MLP's output
    double final_bias = 0.0;        // the final norm's beta . u plus the head's bias difference

    double head(int layer, int h) const { return heads[size_t(layer) * size_t(num_heads) + size_t(h)]; }
    double sum() const;  // every part: equals `logit` up to float32 rounding
};

// Pre-norm models only (GPT-2, the Llama family, GPT-NeoX, its parallel residual too). From an
// already-run forward pass, without a second one: each layer's head outputs at P from the kept
// attention inputs (layer_inputs) and weights, sum_j A_j v_j = (sum_j A_j x_j) Wv + (sum_j A_j) bv
// (C^2 per head group instead of T C^2), and the residual at P followed through the blocks, one
// row each (its MLP input needs it). Grouped-query heads use their key/value group's values.
//   cost: L (H T C + 2 C^2 + one row of the MLP); memory: (L H + 2 L + 1) C floats of parts.
// A pure function of (config, weights, run, position, tokens).
class LogitAttribution {
public:
    static Result<AttributionResult> compute(const ModelConfig& config, const ModelWeights& weights,
                                             const ModelRun& run, int position, const MetricTokens& tokens);
};

}  // namespace attn
