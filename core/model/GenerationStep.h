#pragma once

#include <vector>

namespace attn {

// One token a generation added, with what the model thought of the alternatives at that point
// (what the window's Generate view shows per step, and where a branch can start).
struct GenerationStep {
    int position = 0;  // the token's position in the sequence (the prompt's length for the first)
    int token_id = 0;
    bool forced = false;  // given by the caller (a branch), not chosen by the sampler
    // The most likely tokens there, best first (ties: the lower id), with their logits and their
    // probabilities (softmax of the raw logits, before any temperature or top-k / top-p).
    std::vector<int> top_ids;
    std::vector<float> top_logits;
    std::vector<float> top_p;
};

}  // namespace attn
