#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/RunSettings.h"

namespace attn {

// One complete computation as every view shows it: what was asked, what went in, what came out.
struct AttentionResult {
    RunSettings config;
    AttentionInput input;  // tokens and X (seq_len, input_dim)
    AttentionTrace trace;  // every intermediate of the forward pass
    int output_dim = 0;
    bool has_output_projection = true;
    std::int64_t parameter_count = 0;
    QString weights_description;  // "random (seed 0)", "identity", "model.safetensors (gpt2, layer 1 of 12)"
    int layer_count = 1;
    double compute_ms = 0.0;  // wall time of the forward pass

    int seqLen() const { return int(input.tokens.size()); }
    int numHeads() const { return trace.num_heads; }
};

}  // namespace attn
