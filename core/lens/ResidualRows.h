#pragma once

#include "core/base/Result.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

namespace attn {

// transformers' hidden_states[l] of a run (l = 0 the embeddings, l = L the last entry), read
// where the pass left them: pre-norm models' block inputs in ModelRun::residual_stream, the BERT
// family's in layer_inputs (a post-norm block's input is its attention's input), the last one
// last_hidden_state.
class ResidualRows {
public:
    // GPT-2, the Llama family, GPT-NeoX: a final norm between the blocks and the head.
    static bool preNorm(const ModelConfig& config);
    // Whether the run holds every hidden_states[l] (a pre-norm pass must have kept its residual stream).
    static Status check(const ModelConfig& config, const ModelRun& run);
    // hidden_states[l], (T, C).
    static const Matrix& hiddenState(const ModelConfig& config, const ModelRun& run, int l);
    // The model's final norm (LayerNorm, or the Llama family's RMSNorm) of rows x -> out.
    static void finalNorm(const ModelConfig& config, const ModelWeights& weights, const ConstMatrixRef& x,
                          MatrixRef out);
    // Rows first..first+count-1 of hidden_states[l] as the logit lens reads them: through the
    // final norm for a pre-norm model's l < L, as they are otherwise.   -> out (count, C)
    static void lensRows(const ModelConfig& config, const ModelWeights& weights, const ModelRun& run, int l, int first,
                         int count, MatrixRef out);
};

}  // namespace attn
