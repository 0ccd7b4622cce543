#pragma once

// Plain reference computations for the engine tests: random inputs and weights, and attention as an
// obviously correct loop in float64, one head and one query at a time.

#include "core/attention/AttentionEngine.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

namespace attn::test {

inline Matrix randomMatrix(int rows, int cols, unsigned seed)
{
    std::srand(seed);
    return Matrix::Random(rows, cols);
}

inline AttentionWeights randomWeights(int input_dim, int d_model, int heads, std::uint64_t seed = 1)
{
    return AttentionWeights::random(input_dim, d_model, heads, seed).value();
}

// A plain, obviously correct loop: one head at a time, one query at a time, in double.
inline MatrixD referenceHeadWeights(const Matrix& x, const AttentionWeights& w, int head, double scale, bool causal)
{
    const int d_k = w.headDim();
    const MatrixD q = ((x * w.wq()).rowwise() +
                       (w.hasInputBias() ? RowVector(w.in_bias.segment(0, w.dModel())) : RowVector::Zero(w.dModel())))
                          .middleCols(head * d_k, d_k)
                          .cast<double>();
    const MatrixD k = ((x * w.wk()).rowwise() + (w.hasInputBias() ? RowVector(w.in_bias.segment(w.dModel(), w.dModel()))
                                                                  : RowVector::Zero(w.dModel())))
                          .middleCols(head * d_k, d_k)
                          .cast<double>();
    MatrixD a = MatrixD::Zero(x.rows(), x.rows());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const Eigen::Index visible = causal ? i + 1 : x.rows();
        double max = -std::numeric_limits<double>::infinity();
        for (Eigen::Index j = 0; j < visible; ++j)
            max = std::max(max, q.row(i).dot(k.row(j)) / scale);
        double sum = 0;
        for (Eigen::Index j = 0; j < visible; ++j)
            sum += a(i, j) = std::exp(q.row(i).dot(k.row(j)) / scale - max);
        a.row(i) /= sum;
    }
    return a;
}

// The parts of a grouped-query layer, in math layout: Wq (d_in, heads * d_k), Wk and Wv
// (d_in, kv_heads * d_k), Wo (heads * d_k, d_out); biases empty or of matching widths.
struct GroupedParts {
    int heads = 0;
    int kv_heads = 0;
    Matrix wq, wk, wv, wo;
    RowVector bq, bk, bv, bo;

    AttentionWeights weights() const
    {
        return AttentionWeights::fromParts(heads, kv_heads, wq, wk, wv, bq, bk, bv, wo, bo).value();
    }
};

// Entries of U(-1/sqrt(fan_in), 1/sqrt(fan_in)), like nn.Linear, so that scores stay O(1).
inline GroupedParts groupedParts(int d_in, int heads, int kv_heads, int d_k, int d_out, bool biases, unsigned seed)
{
    const float in_bound = 1.0f / std::sqrt(float(d_in));
    const float out_bound = 1.0f / std::sqrt(float(heads * d_k));
    GroupedParts p;
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.wq = randomMatrix(d_in, heads * d_k, seed) * in_bound;
    p.wk = randomMatrix(d_in, kv_heads * d_k, seed + 1) * in_bound;
    p.wv = randomMatrix(d_in, kv_heads * d_k, seed + 2) * in_bound;
    p.wo = randomMatrix(heads * d_k, d_out, seed + 3) * out_bound;
    if (biases) {
        p.bq = RowVector(randomMatrix(1, heads * d_k, seed + 4)) * in_bound;
        p.bk = RowVector(randomMatrix(1, kv_heads * d_k, seed + 5)) * in_bound;
        p.bv = RowVector(randomMatrix(1, kv_heads * d_k, seed + 6)) * in_bound;
        p.bo = RowVector(randomMatrix(1, d_out, seed + 7)) * out_bound;
    }
    return p;
}

struct ReferencePass {
    std::vector<MatrixD> weights;  // heads x (seq_len, seq_len)
    MatrixD concat;                // (seq_len, heads * d_k)
    MatrixD output;                // (seq_len, d_out)
};

// Grouped-query attention as a plain loop in double: every query head h on its own, with key/value
// head h / (heads / kv_heads), one query at a time, scores divided by sqrt(d_k).
inline ReferencePass referenceGroupedPass(const Matrix& x, const GroupedParts& p, bool causal)
{
    const int d_k = int(p.wq.cols()) / p.heads;
    const int group = p.heads / p.kv_heads;
    const Eigen::Index seq_len = x.rows();
    const auto project = [&x](const Matrix& w, const RowVector& b) {
        MatrixD y = x.cast<double>() * w.cast<double>();  // (seq_len, w.cols())
        if (b.size() > 0)
            y.rowwise() += b.cast<double>();
        return y;
    };
    const MatrixD q = project(p.wq, p.bq);  // (seq_len, heads * d_k)
    const MatrixD k = project(p.wk, p.bk);  // (seq_len, kv_heads * d_k)
    const MatrixD v = project(p.wv, p.bv);  // (seq_len, kv_heads * d_k)
    ReferencePass r;
    r.concat = MatrixD::Zero(seq_len, p.heads * d_k);
    for (int h = 0; h < p.heads; ++h) {
        const int g = h / group;
        MatrixD a = MatrixD::Zero(seq_len, seq_len);
        for (Eigen::Index i = 0; i < seq_len; ++i) {
            const Eigen::Index visible = causal ? i + 1 : seq_len;
            std::vector<double> scores(static_cast<size_t>(visible));  // (visible)
            for (Eigen::Index j = 0; j < visible; ++j)
                scores[size_t(j)] =
                    q.row(i).segment(h * d_k, d_k).dot(k.row(j).segment(g * d_k, d_k)) / std::sqrt(double(d_k));
            const double max = *std::max_element(scores.begin(), scores.end());
            double sum = 0;
            for (Eigen::Index j = 0; j < visible; ++j)
                sum += a(i, j) = std::exp(scores[size_t(j)] - max);
            a.row(i) /= sum;
        }
        r.concat.middleCols(h * d_k, d_k) = a * v.middleCols(g * d_k, d_k);
        r.weights.push_back(std::move(a));
    }
    r.output = r.concat * p.wo.cast<double>();
    if (p.bo.size() > 0)
        r.output.rowwise() += p.bo.cast<double>();
    return r;
}

inline double maxDifference(const Matrix& a, const MatrixD& b)
{
    return (a.cast<double>() - b).cwiseAbs().maxCoeff();
}

}  // namespace attn::test
