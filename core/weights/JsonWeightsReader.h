#pragma once

// Hand-written attention weights as JSON, in math layout (Q = X Wq + bq):
//   1. One object. "num_heads": a positive integer (optional when the caller gives the count).
//   2. "wq", "wk", "wv": required matrices of the same shape (input_dim, d_model), each an array
//      of rows, each row an array of numbers; rectangular, non-empty.
//   3. "wo": optional matrix (d_model, output_dim); without it the output is the concatenation
//      of the heads.
//   4. "bq", "bk", "bv" (d_model) and "bo" (output_dim): optional arrays of numbers; a missing
//      one of bq/bk/bv is zero when another is given.
//   5. Every number finite and inside the float32 range. "description", "comment" and keys that
//      start with "_" are notes and ignored; any other key is an error (a misspelt "bq" must not
//      silently mean "no bias"), and so is a key given twice.
// The text is strict JSON (see JsonCursor.h), read once from front to back straight into float32:
// a matrix with more rows or columns than WeightNaming::kMaxDimension, or more numbers than
// WeightNaming::kMaxParameters, is refused as soon as its count passes the limit.

#include "core/attention/AttentionWeights.h"
#include "core/base/Result.h"

#include <QByteArrayView>

namespace attn {

class JsonWeightsReader {
public:
    static constexpr qint64 kMaxFileBytes = qint64(256) << 20;

    // `num_heads` > 0 overrides the file's "num_heads". Messages are reasons without the file
    // name; they name the key, row and column at fault.
    static Result<AttentionWeights> parse(QByteArrayView json, int num_heads = 0);
};

}  // namespace attn
