#pragma once

#include "core/base/Tensor.h"
#include "core/text/Token.h"

namespace attn {

// The rows that go into attention, with a label for each.
struct AttentionInput {
    TokenList tokens;   // one per row of x
    Matrix x;           // (seq_len, input_dim)
    Matrix positional;  // (seq_len, input_dim): the part of x that is positional encoding, or empty
};

}  // namespace attn
