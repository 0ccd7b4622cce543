#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/base/Tensor.h"

#include <vector>

namespace attn {

// What a causal pass over new tokens after cached ones computes, without the earlier rows: the
// new tokens' rows of every layer's attention, attention input and (when kept) block input, of the
// last hidden state and of the selected layer's trace (TransformerForward::appendTokens). A
// generation keeps one of these per token, so that each step costs only its own rows; a whole
// ModelRun is assembled from them once, at the end.
struct AppendedRows {
    int first = 0;  // the position of the first new row (the cached tokens before it)
    // L x H x (n, first + n): row r holds keys 0..first + r (the entries after it are 0).
    std::vector<std::vector<Matrix>> attention;
    std::vector<Matrix> layer_inputs;     // L x (n, C)
    std::vector<Matrix> residual_stream;  // L x (n, C) when kept (pre-norm models), else empty
    Matrix last_hidden_state;             // (n, C)
    // The selected layer: q, concat, output of the new rows (k and v are the cache's), and for
    // rotary models Q and K before the rotation (n, H * D), (n, Hkv * D).
    AttentionTrace layer_trace;
    Matrix q_before_rotation;
    Matrix k_before_rotation;

    int rows() const { return int(last_hidden_state.rows()); }
};

}  // namespace attn
