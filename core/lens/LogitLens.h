#pragma once

#include "core/base/Result.h"
#include "core/lens/LensResult.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

#include <cstdint>
#include <functional>
#include <optional>

namespace attn {

// What a logit lens is asked for: K tokens per cell, and a token whose p and rank every cell
// tracks (the metric's TARGET), if any.
struct LensRequest {
    int top_k = 5;
    std::optional<int> tracked;
};

// The logit lens (nostalgebraist; TransformerLens's accumulated_resid(apply_ln=True) followed by
// the unembedding) from an already-run forward pass:
//   row l of position t = softmax(head(final_norm(hidden_states[l][t])))   pre-norm models,
//                                                                           l < L
//                         softmax(head(hidden_states[l][t]))               row L (already normed),
//                                                                           BERT and DistilBERT
// with the model's own prediction head (as TokenPredictions::logits). The (L + 1) x T x V grid is
// never held, nor a whole row of V logits: every layer of a block of positions goes through the
// vocabulary together, a chunk of it at a time (VocabularyTopK), each row reduced to its top K,
// the tracked token's p and rank. The last position comes first (every layer of it), then the
// others in blocks of at most kRows positions from the end.
// A pure function of (config, weights, run, request): any thread, any number at once.
class LogitLens {
public:
    static constexpr int kMaxTopK = 100;
    // Positions of a block at most; fewer when the block's normed rows, (L + 1) x positions x C
    // floats, would outgrow kRows rows of logits (64 V floats, 12.9 MB for GPT-2).
    static constexpr int kRows = 64;

    // progress, when given, is called after the last position and after each later block of
    // positions with the result so far (LensResult::done says which positions are filled);
    // returning false stops the work (a newer request has come): the result returned is then the
    // partial one.
    // Refuses a model without a prediction head, K outside 1..kMaxTopK, a tracked id outside the
    // vocabulary, and a pre-norm run that did not keep its residual stream.
    static Result<LensResult> compute(const ModelConfig& config, const ModelWeights& weights, const ModelRun& run,
                                      const LensRequest& request,
                                      const std::function<bool(const LensResult&)>& progress = {});

    // Bytes the lens holds besides the run (whose residual stream, L T C floats, the pass keeps):
    // one block of logits and of normed rows, and the result's cells.
    static std::int64_t extraBytes(const ModelConfig& config, int seq_len, int top_k);
};

}  // namespace attn
