#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/attention/AttentionTrace.h"
#include "core/attention/AttentionWeights.h"
#include "core/base/Result.h"

namespace attn {

// Multi-head scaled dot-product attention, float32, in batched matrix products.
class AttentionEngine {
public:
    // Self-attention: queries, keys and values all come from x (seq_len, input_dim).
    static Result<AttentionTrace> forward(const Matrix& x, const AttentionWeights& weights,
                                          const AttentionOptions& options = {});

    // PyTorch's forward(query, key, value): x_query (query_len, input_dim), x_key and x_value
    // (key_len, input_dim). Cross-attention is x_key = x_value != x_query.
    static Result<AttentionTrace> forward(const Matrix& x_query, const Matrix& x_key, const Matrix& x_value,
                                          const AttentionWeights& weights, const AttentionOptions& options = {});

    // Refuses, before allocating, a pass whose weight matrices would not fit in memory.
    static Status checkSize(int query_len, int key_len, int num_heads, TraceDetail detail);
};

}  // namespace attn
