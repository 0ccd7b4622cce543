#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/ops/LinearColumns.h"

namespace attn {

// The keys queries `first` .. first + rows - 1 multiply: with the causal mask, none after the last query.
int keysOfBlock(const AttentionTrace& trace, int first, int rows);

// One block of queries of one head, P = softmax(mask(Q_h K_g^T) / scale), into w (rows, key_len).
// keys_t holds K_g^T of every key/value head g: rows [g * head_dim, (g+1) * head_dim), key_len columns.
void blockProbabilities(const AttentionTrace& trace, const Matrix& keys_t, int head, int first, int rows, BlockRef w);

}  // namespace attn
