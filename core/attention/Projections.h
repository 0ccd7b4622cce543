#pragma once

#include "core/attention/AttentionWeights.h"
#include "core/base/Tensor.h"

namespace attn {

// The linear maps around attention, straight into the caller's matrices, the threads of an
// OpenMP team (above kParallelWork) sharing out chunks of columns (core/ops/LinearColumns.h).
// Each returns false when a slice of the weights it multiplied is not finite (checked only with
// check_finite; without it the caller vouches for the weights); the weights' shapes and the
// inputs' widths must have been checked.

// Q = X_query Wq + bq   (query_len, d_model)
// K = X_key Wk + bk     (key_len, kv_dim)
// V = X_value Wv + bv   (key_len, kv_dim)
// q, k and v are resized to those shapes.
bool projectQueriesKeysValues(const Matrix& x_query, const Matrix& x_key, const Matrix& x_value,
                              const AttentionWeights& weights, Matrix& q, Matrix& k, Matrix& v,
                              bool check_finite = true);

// output = concat Wo + bo   (query_len, output_dim), or output = concat without Wo.
bool projectOutput(const Matrix& concat, const AttentionWeights& weights, Matrix& output, bool check_finite = true);

}  // namespace attn
