#pragma once

#include "core/base/Tensor.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace attn {

// What one row of logits z = x W^T + b (V entries) comes to under a softmax: the largest logit,
// sum_j exp(z_j - max), the K largest logits in the order "logit descending, ties: the lower id
// first", and, for a tracked id, its logit and the number of ids before it in that order.
struct LogitSummary {
    float max = -std::numeric_limits<float>::infinity();
    double exp_sum = 0.0;
    std::vector<int> top_ids;  // best first
    std::vector<float> top_logits;
    float tracked_logit = 0.0f;
    int tracked_before = 0;

    // softmax(z) at an entry whose logit is z_j.
    double probability(float logit) const { return std::exp(double(logit) - double(max)) / exp_sum; }
};

// The unembedding of rows x (n, C) against W (V, C) reduced to a LogitSummary per row without
// holding the (n, V) logits: W is read one chunk of kChunk vocabulary rows at a time, shared out
// among the threads; each chunk's (n, kChunk) logits are read by the row maxima, exp sums, top K
// and ranks while still in the core's cache (1.7 MB for 832 rows), never from memory. W itself
// is read from memory once per call, whatever n is (154 MB for GPT-2), so a caller gets the most
// from one call with many rows.
//   exp_sum: the chunks' float sums of exp(z - chunk max), combined in double in chunk order, so
//            the result does not depend on the threads;
//   top K and ranks: exact comparisons of the same float logits.
class VocabularyTopK {
public:
    static constexpr Eigen::Index kChunk = 512;

    // bias: (V) or empty. k >= 1; tracked in [0, V) or none. Returns false when a logit is NaN or
    // infinite (out is then unspecified).
    static bool reduce(const ConstMatrixRef& x, const ConstMatrixRef& w, const RowVector& bias, int k,
                       std::optional<int> tracked, std::vector<LogitSummary>& out);
};

}  // namespace attn
