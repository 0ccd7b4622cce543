#pragma once

#include "core/base/Tensor.h"

namespace attn {

// The query and key vectors of one head in one 2-D plane, as AttentionViz draws them (Yeh et
// al., 2023). Two changes first, neither of which changes any attention weight:
//   keys translated so both clouds share a centroid:  k' = k - mean(k) + mean(q)
//     (q . (k + c) = q . k + q . c: a constant per query row, which softmax removes);
//   queries and keys scaled to the same mean norm:    q'' = q s, k'' = k' / s
//     (q'' . k'' = q . k'), s = sqrt(mean |k'| / mean |q|).
// Then the joint set [q''; k''] is centred and projected on its two principal axes (the
// eigenvectors of its covariance with the largest eigenvalues, Eigen's SelfAdjointEigenSolver).
// Each axis's sign is fixed so that its largest loading is positive: the same input gives the
// same plane, not its mirror image.
struct QueryKeyPoints {
    MatrixD queries;                   // (T_q, 2)
    MatrixD keys;                      // (T_k, 2)
    double explained[2] = {0.0, 0.0};  // the share of the joint variance along each axis
    double scale = 1.0;                // s
};

class QueryKeySpace {
public:
    // The two changes alone, in D dimensions: (T_q, D) and (T_k, D), and s.
    struct Normalised {
        MatrixD queries;
        MatrixD keys;
        double scale = 1.0;
    };
    static Normalised normalise(const Matrix& q, const Matrix& k);

    // q: (T_q, D) one head's queries; k: (T_k, D) its keys (a grouped-query head's key/value head).
    static QueryKeyPoints project(const Matrix& q, const Matrix& k);
};

}  // namespace attn
