#pragma once

#include "Tensor.h"

namespace attn {

// The sinusoidal encoding of "Attention Is All You Need" (section 3.5):
//   PE(pos, 2i)   = sin(pos / 10000^(2i / dim))
//   PE(pos, 2i+1) = cos(pos / 10000^(2i / dim))
class PositionalEncoding {
public:
    static Matrix sinusoidal(int seq_len, int dim);  // (seq_len, dim)
};

}  // namespace attn
