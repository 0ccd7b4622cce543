#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/attention/AttentionTrace.h"
#include "core/attention/AttentionWeights.h"
#include "core/attention/KeyValueCache.h"
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

    // Self-attention of new tokens that follow the cached ones (typing at the end of a sentence
    // under the causal mask): only x_new (new_len, input_dim) is projected; its keys and values
    // (rotated from position cache.length(), when the options rotate) are appended to the cache,
    // and its queries attend to every cached and new key. The trace holds the new queries' rows
    // (q, weights, concat, output: new_len rows, query_offset = the cached length) and all keys
    // and values (k, v: cached + new rows, copied from the cache). Key padding, if any, has one
    // flag per key, cached and new. Rows equal those of forward() over the whole input, up to the
    // order of the products' sums (within float32's error bounds in the tests).
    static Result<AttentionTrace> forwardAppending(const Matrix& x_new, const AttentionWeights& weights,
                                                   const AttentionOptions& options, KeyValueCache& cache);

    // Refuses, before allocating, a pass whose weight matrices would not fit in memory.
    static Status checkSize(int query_len, int key_len, int num_heads, TraceDetail detail);
};

}  // namespace attn
