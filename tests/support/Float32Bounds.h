#pragma once

// Error bounds of float32 computations, derived rather than measured, so that a tolerance holds
// for every order in which a kernel sums (AVX2, AVX-512, the AMX tiles, any number of threads or
// rows) and in every build type. Each bound compares `passes` float32 evaluations of one exact
// computation: 1 for a float32 result against a float64 reference, 2 for two float32 results
// against each other (each pass's rounding counts once).
//
// The rule behind them (Higham, Accuracy and Stability of Numerical Algorithms, 3.1): a sum of n
// terms computed in float32 in any order, with or without fused multiply-adds, lies within
// gamma_n * (the sum of the terms' absolute values) of the exact sum, gamma_n = n u / (1 - n u),
// u = 2^-24.

#include "core/attention/AttentionTrace.h"
#include "core/attention/AttentionWeights.h"
#include "core/base/Tensor.h"

#include <QString>

#include <Eigen/Core>

#include <vector>

namespace attn::testing {

using DoubleMatrix = Eigen::MatrixXd;

// float32's unit roundoff.
constexpr double kUnitRoundoff = 0x1p-24;

// The command-line contract's tolerance against float64 for a whole model's run
// (docs/command-line.md): attention absolutely, hidden states and Q, K, V relative to their largest
// value. For runs through every layer, LayerNorm and MLP, where a derived bound would be longer
// than the test.
constexpr double kContractTolerance = 2e-5;

// Higham's gamma_n.
double gammaOf(Eigen::Index n);

// gamma for one entry of x W + b with `inner` rows of W, in any kernel: the AMX tiles split each
// x into three bfloat16 parts and add 3 * inner exact products (TileWeights.h), and |hi| + |mid| +
// |lo| exceeds |x| by less than 2^-7 of it; the float32 kernels add inner products and the bias.
double productGamma(Eigen::Index inner);

// x W + b of `passes` float32 evaluations whose inputs lie up to |dx| apart (dx = 0 for the same
// input). `size` is |x| |W| + |b| (the sum of |terms| of each entry), `bound` the elementwise bound
// on how far the results lie apart: |dx| |W| from the inputs, each pass's rounding, and
// weight_error times the sums of |terms| when the other side's W and b lie within
// weight_error |W|, |b| of these (float64 weights rounded to float32: u / (1 - u)).
struct ProductBound {
    DoubleMatrix size;
    DoubleMatrix bound;
};
ProductBound productBound(const Matrix& x, const Matrix& dx, const Matrix& w, const RowVector& bias, int passes,
                          double weight_error = 0.0);
ProductBound productBound(const Matrix& x, const DoubleMatrix& dx, const Matrix& w, const RowVector& bias, int passes,
                          double weight_error = 0.0);

// A position rotation of values (rows, heads * head_dim) that lie within `bound` of the other
// side's before the rotation: the bound after it. In each head, features [0, rotary_dim) are turned
// in pairs (i, i + pair_stride) within blocks of 2 pair_stride (RoPE's rotate_half: one block,
// pair_stride = rotary_dim / 2; interleaved pairs: pair_stride 1); the rest pass through. `values`
// are one side's, before or after the rotation. Each turned feature a c - b s takes
// |c| b_a + |s| b_b <= b_a + b_b from its inputs, `table_error` (|dc|, |ds|: the sides' cosine and
// sine tables apart) times |a| + |b|, and each pass's rounding, gamma_2 (|a| + |b|).
DoubleMatrix rotatedBound(const Matrix& values, const DoubleMatrix& bound, int heads, int head_dim, int rotary_dim,
                          int pair_stride, double table_error, int passes);

// Per row, the 2-norm of columns [first, first + width) of `values` and of `bound`: the 2-norm of a
// head's vector and a bound on its distance to the other side's.
Eigen::VectorXd rowNorms(const Matrix& values, int first, int width);
Eigen::VectorXd rowNorms(const DoubleMatrix& bound, int first, int width);

// How far one head's scores s_ij = scale q_i . k_j, and everything the softmax does before its
// exponentials, may move between the sides, per query row i (the largest over its keys): from
// the 2-norms of one side's q and k and the bounds dq, dk on their distance to the other side's
// (Cauchy-Schwarz: |q.k - q'.k'| <= |dq| (|k| + |dk|) + |q| |dk|), plus each pass's rounding of
// the head_dim-term product and of the scaling (gamma_{head_dim + 2} (|q| + |dq|) (|k| + |dk|)) and
// of what MaskedSoftmax does before its exponentials: (s - max) * (1 / scale), three roundings of
// at most u |s - max| each, |s - max| at most 2 |q| times the largest |k|.
Eigen::VectorXd scoreChangeBound(const Eigen::VectorXd& q, const Eigen::VectorXd& dq, const Eigen::VectorXd& k,
                                 const Eigen::VectorXd& dk, double scale, int head_dim, int passes);

// The bound on each softmax probability of a head (rows x keys) whose scores moved by at most
// delta(i) in row i: a softmax whose inputs all move by at most delta moves each probability p by
// at most p (exp(2 delta) - 1), plus each pass's rounding of the exponentials (within 1.5 ulp:
// 3 u p, as scores moved by 1.5 u), the row's sum of `keys` terms and the product by its inverse
// (gamma_{keys + 1} p), gamma_{keys + 4} p in all, and u for the stored result. `p` is the larger
// of the two sides' probabilities.
DoubleMatrix probabilityBound(const DoubleMatrix& p, const Eigen::VectorXd& delta, int passes);

// Two float32 passes of head `head`'s softmax over the same Q and K, the trace's (the caller
// checks that both passes had them bit for bit): other query blocks, the same row under another
// mask of other rows, a second run of the same weights. Per entry of a and b (rows x keys, the two
// sides' probabilities, every query row): the scores' two roundings (scoreChangeBound, dq = dk = 0)
// through the softmax (probabilityBound), p the larger of the sides.
DoubleMatrix sameScoresProbabilityBound(const AttentionTrace& trace, int head, const Matrix& a, const Matrix& b);

// The bound for P V (one head: P rows x keys, V keys x head_dim) when P and V lie up to dP, dV
// apart: |dP| |V| + |P| |dV| plus each pass's rounding of the keys-term products, with the larger
// |P| and |V| of the two sides.
DoubleMatrix weightedValuesBound(const DoubleMatrix& p, const DoubleMatrix& dp, const DoubleMatrix& v,
                                 const DoubleMatrix& dv, int passes);

// The position rotation of Q and K, if any (rotary_dim 0: none); see rotatedBound.
struct RotationShape {
    int rotary_dim = 0;
    int pair_stride = 0;
    double table_error = 0.0;
};

// One attention layer (AttentionEngine::forward over x) evaluated by `passes` float32 passes whose
// inputs lie up to |dx| apart: elementwise bounds on Q and K before the position rotation, on Q,
// K (after `rotation`) and V, and per head on the probabilities. `q`, `k` are one side's Q and K
// as the scores use them, `probabilities` per head the larger of the sides' probabilities.
struct AttentionLayerBounds {
    DoubleMatrix q_before_rotation;
    DoubleMatrix k_before_rotation;
    DoubleMatrix q;
    DoubleMatrix k;
    DoubleMatrix v;
    std::vector<DoubleMatrix> probabilities;
};
struct AttentionLayerSide {
    const Matrix& x;
    const DoubleMatrix& dx;
    const Matrix& q;
    const Matrix& k;
    const std::vector<DoubleMatrix>& probabilities;
    // Cross-attention: the keys' and values' input and its difference (null: x and dx).
    const Matrix* key_x = nullptr;
    const DoubleMatrix* key_dx = nullptr;
    // How far the other side's weights lie apart, relatively (productBound).
    double weight_error = 0.0;
};
AttentionLayerBounds attentionLayerBounds(const AttentionWeights& weights, const AttentionLayerSide& side,
                                          const RotationShape& rotation, double scale, int passes);

// The weighted values (concat = P V per head) and the output (concat Wo + bo) of that layer, from
// the derived bounds on P and V (weightedValuesBound, productBound). `probabilities` per head the
// larger of the sides', `v` and `concat` one side's.
struct AttentionOutputBounds {
    DoubleMatrix concat;
    DoubleMatrix output;
};
AttentionOutputBounds attentionOutputBounds(const AttentionWeights& weights, const AttentionLayerBounds& bounds,
                                            const std::vector<DoubleMatrix>& probabilities, const Matrix& v,
                                            const Matrix& concat, double weight_error, int passes);

// The bound on |sum_j p_j - 1| for one softmax row of `keys` visible keys in float32: the same
// computed exponentials e_j make the sum S and the numerators, so their errors cancel and only the
// sum's, the inverse's and the products' roundings remain (gamma_{keys + 1}); gamma_{keys + 2}
// leaves room for the test's own sum of the row in double.
double rowSumBound(Eigen::Index keys);

// Where |a - b| exceeds `bound` anywhere, in words ("name (row, col) differs by x, bound y");
// empty when it does not. `worst` (optional) receives the largest |a - b| / bound.
QString beyondBound(const char* name, const Matrix& a, const Matrix& b, const DoubleMatrix& bound,
                    double* worst = nullptr);
QString beyondBound(const char* name, const Matrix& a, const DoubleMatrix& b, const DoubleMatrix& bound,
                    double* worst = nullptr);

}  // namespace attn::testing
