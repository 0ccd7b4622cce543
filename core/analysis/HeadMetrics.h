#pragma once

#include "core/base/Tensor.h"
#include "core/model/AttentionMaps.h"

#include <vector>

namespace attn {

// Summary numbers of one head's attention weights A (query_len, key_len), each a mean over the
// rows that hold a distribution (a query that sees no key at all has an all-zero row and is left
// out). Natural logarithms, computed in double.
struct HeadMetric {
    double entropy = 0.0;   // mean of -sum_j A_ij ln A_ij  (0 ln 0 = 0); 0 = one-hot, ln(T) = uniform
    double max = 0.0;       // mean of max_j A_ij
    double diagonal = 0.0;  // mean of A_ii: 1 for the identity
    double previous = 0.0;  // mean over rows i >= 1 of A_i,i-1: 1 for a previous-token head; 0 when T = 1
    double first = 0.0;     // mean of A_i0: attention parked on the first token
};

HeadMetric computeHeadMetrics(const Matrix& weights);  // weights: (query_len, key_len)
std::vector<HeadMetric> computeHeadMetrics(const std::vector<Matrix>& heads);
// One head of a whole model, read row by row from its compact maps (no (T, T) matrix is built);
// the same numbers as computeHeadMetrics(maps.head(layer, head)).
HeadMetric computeHeadMetrics(const AttentionMaps& maps, int layer, int head);

// Mean over rows of the Jensen-Shannon divergence between row i of a and row i of b (natural log):
// JS(p, q) = 1/2 KL(p || m) + 1/2 KL(q || m), m = (p + q) / 2. Each row is normalised to sum 1
// first (float rows are off by ~1e-7); 0 ln 0 = 0. In [0, ln 2], 0 exactly when a == b, and
// symmetric bit for bit. A row that is all zeros in one matrix only counts ln 2, in both 0.
// a and b must have the same shape; rows with no distribution in either are left out.
double jensenShannon(const Matrix& a, const Matrix& b);

// num_heads x num_heads: entry (x, y) = jensenShannon(heads[x], heads[y]).
MatrixD similarityMatrix(const std::vector<Matrix>& heads);

// A permutation of 0..n-1 that puts similar heads next to each other: the leaf order of an
// average-linkage clustering of the divergence matrix, each merge oriented so the two heads that
// meet are the closest of the possible ends. Deterministic (ties go to the lower index).
std::vector<int> similarityOrder(const MatrixD& divergence);

}  // namespace attn
