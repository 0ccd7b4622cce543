#pragma once

#include "core/base/Result.h"
#include "core/pipeline/MemoryPlan.h"

#include <cstdint>

namespace attn {

struct ModelConfig;

// What a whole model's logit lens takes, planned as MemoryPlan plans a pass: the residual stream
// the pass keeps for it (L T C floats) and what LogitLens holds besides (LogitLens::extraBytes),
// checked against a memory budget before the lens is computed. The window's Lens tab and the
// command line's --logit-lens and --view lens ask it.
class LensMemory {
public:
    static std::int64_t bytes(const ModelConfig& config, int seq_len, int top_k);
    // A request holding only the lens (and the program's baseline), for MemoryPlan::estimate.
    static MemoryRequest request(const ModelConfig& config, int seq_len, int top_k);
    // Refused: "the logit lens of 5,000 tokens needs about 1.2 GB (its residual stream 0.9 GB),
    // over the memory budget of 1.0 GB: at most 4,100 tokens fit".
    static Status check(const ModelConfig& config, int seq_len, int top_k, std::int64_t budget);
};

}  // namespace attn
