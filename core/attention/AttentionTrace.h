#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/base/Tensor.h"

#include <vector>

namespace attn {

// Every intermediate of one forward pass, kept so the window can show each step.
// Head h owns columns [h * head_dim, (h + 1) * head_dim) of q, k, v and concat.
struct AttentionTrace {
    int num_heads = 0;
    int head_dim = 0;
    float scale = 1.0f;  // the divisor of the scores
    bool causal = false;
    std::vector<bool> key_padding;  // per key; empty = none

    Matrix q;                     // (query_len, d_model)
    Matrix k;                     // (key_len, d_model)
    Matrix v;                     // (key_len, d_model)
    std::vector<Matrix> scores;   // num_heads x (query_len, key_len): raw Q_h K_h^T, TraceDetail::Full only
    std::vector<Matrix> weights;  // num_heads x (query_len, key_len): softmax weights, masked = exactly 0
    Matrix concat;                // (query_len, d_model): the heads' outputs side by side
    Matrix output;                // (query_len, output_dim): concat Wo + bo, or concat without Wo

    int queryLength() const { return int(q.rows()); }
    int keyLength() const { return int(k.rows()); }
    int dModel() const { return num_heads * head_dim; }
    bool hasScores() const { return !scores.empty(); }

    auto qHead(int head) const { return q.middleCols(head * head_dim, head_dim); }            // (query_len, head_dim)
    auto kHead(int head) const { return k.middleCols(head * head_dim, head_dim); }            // (key_len, head_dim)
    auto vHead(int head) const { return v.middleCols(head * head_dim, head_dim); }            // (key_len, head_dim)
    auto headOutput(int head) const { return concat.middleCols(head * head_dim, head_dim); }  // (query_len, head_dim)

    // True when query `query` may not look at key `key` (causal or padding).
    bool isMasked(int query, int key) const;
    // The steps between raw scores and weights, for one entry (needs TraceDetail::Full).
    float scaledScore(int head, int query, int key) const;
    float maskedScore(int head, int query, int key) const;  // -infinity where masked
};

}  // namespace attn
