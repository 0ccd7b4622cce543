#pragma once

#include "core/base/Tensor.h"

#include <QtGlobal>

namespace attn {

// The sinusoidal encoding of "Attention Is All You Need" (section 3.5):
//   PE(pos, 2i)   = sin(pos / 10000^(2i / dim))
//   PE(pos, 2i+1) = cos(pos / 10000^(2i / dim))
// The encoding depends only on (seq_len, dim) and row `pos` does not depend on seq_len, so the
// tallest table computed so far is kept per width (thread-safe) and a request is its top rows;
// a longer request computes only the missing rows. Every element is computed by the same
// expression as before the cache existed, so results are bit-identical.
class PositionalEncoding {
public:
    static Matrix sinusoidal(int seq_len, int dim);  // (seq_len, dim)

    // Computed afresh, bypassing the cache (what the cache must reproduce).
    static Matrix compute(int seq_len, int dim);                         // (seq_len, dim)
    static constexpr qsizetype kCachedTableFloats = qsizetype(1) << 22;  // 16 MiB per width at most
};

}  // namespace attn
