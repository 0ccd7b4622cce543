#include "tests/support/Float32Bounds.h"

#include <QString>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::testing {

double gammaOf(Eigen::Index n)
{
    const double nu = double(n) * kUnitRoundoff;
    return nu / (1.0 - nu);
}

double productGamma(Eigen::Index inner)
{
    return gammaOf(3 * inner + 1) * (1.0 + 0x1p-7);
}

ProductBound productBound(const Matrix& x, const DoubleMatrix& dx, const Matrix& w, const RowVector& bias, int passes,
                          double weight_error)
{
    const DoubleMatrix abs_w = w.cast<double>().cwiseAbs();
    DoubleMatrix size = x.cast<double>().cwiseAbs() * abs_w;
    if (bias.size() > 0)
        size.rowwise() += bias.cast<double>().cwiseAbs();
    const DoubleMatrix moved = dx.cwiseAbs() * abs_w;
    // The other side's sums of |terms| are at most size + moved.
    DoubleMatrix bound = moved + passes * productGamma(w.rows()) * (size + moved) + weight_error * (size + moved);
    return {std::move(size), std::move(bound)};
}

ProductBound productBound(const Matrix& x, const Matrix& dx, const Matrix& w, const RowVector& bias, int passes,
                          double weight_error)
{
    return productBound(x, DoubleMatrix(dx.cast<double>()), w, bias, passes, weight_error);
}

DoubleMatrix rotatedBound(const Matrix& values, const DoubleMatrix& bound, int heads, int head_dim, int rotary_dim,
                          int pair_stride, double table_error, int passes)
{
    DoubleMatrix rotated = bound;
    const double per_feature = table_error + passes * gammaOf(2);
    for (Eigen::Index r = 0; r < values.rows(); ++r)
        for (int h = 0; h < heads; ++h)
            for (int block = 0; block + 2 * pair_stride <= rotary_dim; block += 2 * pair_stride)
                for (int i = 0; i < pair_stride; ++i) {
                    const int a = h * head_dim + block + i, b = a + pair_stride;
                    const double inputs = bound(r, a) + bound(r, b);
                    // |a| + |b| of the pair before the turn, from either side of it: at most sqrt(2)
                    // times the pair's 2-norm, which the turn keeps (up to the tables' error, far
                    // below 1.5 / sqrt(2)).
                    const double pair =
                        1.5 * (std::abs(double(values(r, a))) + std::abs(double(values(r, b)))) + inputs;
                    rotated(r, a) = rotated(r, b) = inputs + per_feature * pair;
                }
    return rotated;
}

Eigen::VectorXd rowNorms(const Matrix& values, int first, int width)
{
    return values.middleCols(first, width).cast<double>().rowwise().norm();
}

Eigen::VectorXd rowNorms(const DoubleMatrix& bound, int first, int width)
{
    return bound.middleCols(first, width).rowwise().norm();
}

Eigen::VectorXd scoreChangeBound(const Eigen::VectorXd& q, const Eigen::VectorXd& dq, const Eigen::VectorXd& k,
                                 const Eigen::VectorXd& dk, double scale, int head_dim, int passes)
{
    const double rounding = passes * gammaOf(head_dim + 2);
    const double largest_key = (k + dk).maxCoeff();
    Eigen::VectorXd delta(q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) {
        double moved = 0.0;
        for (Eigen::Index j = 0; j < k.size(); ++j)
            moved = std::max(moved, dq(i) * (k(j) + dk(j)) + q(i) * dk(j) + rounding * (q(i) + dq(i)) * (k(j) + dk(j)));
        const double shift = passes * 6.0 * kUnitRoundoff * (q(i) + dq(i)) * largest_key;
        delta(i) = scale * (moved + shift);
    }
    return delta;
}

DoubleMatrix probabilityBound(const DoubleMatrix& p, const Eigen::VectorXd& delta, int passes)
{
    const double rounding = passes * gammaOf(p.cols() + 4);
    DoubleMatrix bound(p.rows(), p.cols());
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
        const double relative = std::expm1(2.0 * delta(i)) + rounding;
        bound.row(i) = (p.row(i) * relative).array() + passes * kUnitRoundoff;
    }
    return bound;
}

DoubleMatrix sameScoresProbabilityBound(const AttentionTrace& trace, int head, const Matrix& a, const Matrix& b)
{
    const Eigen::VectorXd q = rowNorms(trace.q, head * trace.head_dim, trace.head_dim);
    const Eigen::VectorXd k = rowNorms(trace.k, trace.kvHeadOf(head) * trace.head_dim, trace.head_dim);
    const Eigen::VectorXd delta =
        scoreChangeBound(q, Eigen::VectorXd::Zero(q.size()), k, Eigen::VectorXd::Zero(k.size()),
                         1.0 / double(trace.scale), trace.head_dim, 2);
    const DoubleMatrix larger = a.cast<double>().cwiseMax(b.cast<double>());
    return probabilityBound(larger, delta, 2);
}

DoubleMatrix weightedValuesBound(const DoubleMatrix& p, const DoubleMatrix& dp, const DoubleMatrix& v,
                                 const DoubleMatrix& dv, int passes)
{
    return dp.cwiseAbs() * v.cwiseAbs() + p.cwiseAbs() * dv.cwiseAbs() +
           passes * gammaOf(p.cols()) * (p.cwiseAbs() * v.cwiseAbs());
}

AttentionLayerBounds attentionLayerBounds(const AttentionWeights& weights, const AttentionLayerSide& side,
                                          const RotationShape& rotation, double scale, int passes)
{
    const int rotary_dim = rotation.rotary_dim, pair_stride = rotation.pair_stride;
    const double table_error = rotation.table_error;
    const int heads = weights.num_heads, d = weights.headDim(), group = heads / weights.kvHeads();
    const int d_model = weights.dModel(), kv_dim = weights.kvDim();
    const auto bias = [&](int first, int width) {
        return weights.hasInputBias() ? RowVector(weights.in_bias.segment(first, width)) : RowVector();
    };
    const Matrix& key_x = side.key_x ? *side.key_x : side.x;
    const DoubleMatrix& key_dx = side.key_dx ? *side.key_dx : side.dx;
    const double e = side.weight_error;
    AttentionLayerBounds bounds;
    bounds.q_before_rotation = productBound(side.x, side.dx, weights.wq(), bias(0, d_model), passes, e).bound;
    bounds.k_before_rotation = productBound(key_x, key_dx, weights.wk(), bias(d_model, kv_dim), passes, e).bound;
    bounds.v = productBound(key_x, key_dx, weights.wv(), bias(d_model + kv_dim, kv_dim), passes, e).bound;
    bounds.q = rotary_dim > 0 ? rotatedBound(side.q, bounds.q_before_rotation, heads, d, rotary_dim, pair_stride,
                                             table_error, passes)
                              : bounds.q_before_rotation;
    bounds.k = rotary_dim > 0 ? rotatedBound(side.k, bounds.k_before_rotation, weights.kvHeads(), d, rotary_dim,
                                             pair_stride, table_error, passes)
                              : bounds.k_before_rotation;
    for (int h = 0; h < heads; ++h) {
        const int g = h / group;
        const Eigen::VectorXd delta =
            scoreChangeBound(rowNorms(side.q, h * d, d), rowNorms(bounds.q, h * d, d), rowNorms(side.k, g * d, d),
                             rowNorms(bounds.k, g * d, d), scale, d, passes);
        bounds.probabilities.push_back(probabilityBound(side.probabilities[size_t(h)], delta, passes));
    }
    return bounds;
}

double rowSumBound(Eigen::Index keys)
{
    return gammaOf(keys + 2);
}

AttentionOutputBounds attentionOutputBounds(const AttentionWeights& weights, const AttentionLayerBounds& bounds,
                                            const std::vector<DoubleMatrix>& probabilities, const Matrix& v,
                                            const Matrix& concat, double weight_error, int passes)
{
    const int heads = weights.num_heads, d = weights.headDim(), group = heads / weights.kvHeads();
    AttentionOutputBounds out;
    out.concat.resize(concat.rows(), heads * d);
    for (int h = 0; h < heads; ++h) {
        const DoubleMatrix dv = bounds.v.middleCols((h / group) * d, d);
        const DoubleMatrix larger_v = v.middleCols((h / group) * d, d).cast<double>().cwiseAbs() + dv;
        out.concat.middleCols(h * d, d) =
            weightedValuesBound(probabilities[size_t(h)], bounds.probabilities[size_t(h)], larger_v, dv, passes);
    }
    if (weights.hasOutputProjection())
        out.output = productBound(concat, out.concat, weights.out_proj, weights.out_bias, passes, weight_error).bound;
    else
        out.output = out.concat;
    return out;
}

QString beyondBound(const char* name, const Matrix& a, const DoubleMatrix& b, const DoubleMatrix& bound, double* worst)
{
    if (a.rows() != b.rows() || a.cols() != b.cols() || bound.rows() != b.rows() || bound.cols() != b.cols())
        return QStringLiteral("%1: different shapes").arg(QLatin1String(name));
    const DoubleMatrix difference = (a.cast<double>() - b).cwiseAbs();
    if (worst) {
        *worst = 0.0;
        for (Eigen::Index r = 0; r < difference.rows(); ++r)
            for (Eigen::Index c = 0; c < difference.cols(); ++c)
                if (difference(r, c) > 0.0)
                    *worst = std::max(*worst, bound(r, c) > 0.0 ? difference(r, c) / bound(r, c)
                                                                : std::numeric_limits<double>::infinity());
    }
    const DoubleMatrix excess = difference - bound;
    Eigen::Index row = 0, col = 0;
    if (excess.size() == 0 || excess.maxCoeff(&row, &col) <= 0.0)
        return {};
    return QStringLiteral("%1 (%2, %3) differs by %4, bound %5")
        .arg(QLatin1String(name))
        .arg(row)
        .arg(col)
        .arg(difference(row, col))
        .arg(bound(row, col));
}

QString beyondBound(const char* name, const Matrix& a, const Matrix& b, const DoubleMatrix& bound, double* worst)
{
    return beyondBound(name, a, DoubleMatrix(b.cast<double>()), bound, worst);
}

}  // namespace attn::testing
