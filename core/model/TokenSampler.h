#pragma once

#include "core/base/SplitMix64.h"
#include "core/model/SamplingSettings.h"

#include <vector>

namespace attn {

// Chooses the next token from one row of logits, as SamplingSettings says.
//   Greedy: argmax, the lower id on ties (torch.argmax's first maximum).
//   Sampling, in float64 from the float32 logits, as transformers' warpers do it:
//     TemperatureLogitsWarper  s_i = logit_i / temperature
//     TopKLogitsWarper         s_i < (k-th largest s) -> -inf   (k = min(top_k, V); ties kept)
//     TopPLogitsWarper         sort ascending (ties: the higher id first), p = softmax(sorted),
//                              drop the entries whose cumulative p <= 1 - top_p, never the last
//     then p = softmax(s) over what is left, and the token is the first id (in id order) whose
//     cumulative p exceeds u * sum(p), u = SplitMix64::uniform() (53 bits, one draw per token).
// The generator is the sampler's own: the same seed and logits give the same tokens everywhere.
class TokenSampler {
public:
    explicit TokenSampler(const SamplingSettings& settings) : m_settings(settings), m_random(settings.seed) {}

    int choose(const float* logits, int vocab);

    // The largest logit's id, ties to the lower id.
    static int argmax(const float* logits, int vocab);

private:
    SamplingSettings m_settings;
    SplitMix64 m_random;
    std::vector<double> m_scores;  // (V) warped scores, reused from token to token
    std::vector<int> m_order;      // (V) ids sorted for top-k / top-p
};

}  // namespace attn
