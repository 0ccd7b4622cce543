#include "core/attention/AttentionWeights.h"

#include "core/base/SplitMix64.h"

#include <cmath>

namespace attn {
namespace {

constexpr int kMaxDimension = 65536;
constexpr std::int64_t kMaxParameters = std::int64_t(1) << 30;  // 4 GiB of float32

void fillUniform(auto& m, double bound, SplitMix64& rng)
{
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            m(r, c) = static_cast<float>(rng.uniform(-bound, bound));
}

}  // namespace

std::int64_t AttentionWeights::parameterCount() const
{
    return in_proj.size() + in_bias.size() + out_proj.size() + out_bias.size();
}

Status AttentionWeights::checkDimensions(int input_dim, int d_model, int num_heads)
{
    if (num_heads <= 0)
        return Error{QStringLiteral("the number of heads must be a positive integer, got %1").arg(num_heads)};
    if (d_model <= 0)
        return Error{QStringLiteral("d_model must be a positive integer, got %1").arg(d_model)};
    if (input_dim <= 0)
        return Error{QStringLiteral("the input dimension must be a positive integer, got %1").arg(input_dim)};
    if (d_model > kMaxDimension || input_dim > kMaxDimension)
        return Error{QStringLiteral("dimensions above %1 are not supported (d_model %2, input %3)")
                         .arg(kMaxDimension)
                         .arg(d_model)
                         .arg(input_dim)};
    if (d_model % num_heads != 0)
        return Error{QStringLiteral("d_model %1 is not divisible by %2 heads").arg(d_model).arg(num_heads)};
    const std::int64_t parameters = std::int64_t(input_dim) * 3 * d_model + std::int64_t(d_model) * d_model;
    if (parameters > kMaxParameters)
        return Error{
            QStringLiteral("%1 parameters would not fit in memory (limit %2)").arg(parameters).arg(kMaxParameters)};
    return {};
}

Status AttentionWeights::validate() const
{
    if (Status shapes = validateShapes(); !shapes)
        return shapes;
    if (!allFinite(in_proj) || !allFinite(in_bias) || !allFinite(out_proj) || !allFinite(out_bias))
        return Error{QStringLiteral("the weights contain NaN or infinite values")};
    return {};
}

Status AttentionWeights::validateShapes() const
{
    if (in_proj.cols() % 3 != 0 || in_proj.size() == 0)
        return Error{QStringLiteral("the input projection must have 3 * d_model columns, got %1").arg(in_proj.cols())};
    if (Status dims = checkDimensions(inputDim(), dModel(), num_heads); !dims)
        return dims;
    if (hasInputBias() && in_bias.size() != in_proj.cols())
        return Error{
            QStringLiteral("the input bias has %1 entries, expected %2").arg(in_bias.size()).arg(in_proj.cols())};
    if (hasOutputProjection() && out_proj.rows() != dModel())
        return Error{QStringLiteral("the output projection has %1 rows, expected d_model = %2")
                         .arg(out_proj.rows())
                         .arg(dModel())};
    if (out_bias.size() > 0 && out_bias.size() != outputDim())
        return Error{
            QStringLiteral("the output bias has %1 entries, expected %2").arg(out_bias.size()).arg(outputDim())};
    return {};
}

Result<AttentionWeights> AttentionWeights::fromParts(int num_heads, const Matrix& wq, const Matrix& wk,
                                                     const Matrix& wv, const RowVector& bq, const RowVector& bk,
                                                     const RowVector& bv, const Matrix& wo, const RowVector& bo)
{
    auto sameShape = [](const Matrix& a, const Matrix& b) { return a.rows() == b.rows() && a.cols() == b.cols(); };
    if (!sameShape(wq, wk) || !sameShape(wq, wv))
        return Error{QStringLiteral("Wq (%1x%2), Wk (%3x%4) and Wv (%5x%6) must have the same shape")
                         .arg(wq.rows())
                         .arg(wq.cols())
                         .arg(wk.rows())
                         .arg(wk.cols())
                         .arg(wv.rows())
                         .arg(wv.cols())};
    const bool anyBias = bq.size() || bk.size() || bv.size();
    if (anyBias && (bq.size() != wq.cols() || bk.size() != wq.cols() || bv.size() != wq.cols()))
        return Error{QStringLiteral("the biases bq, bk, bv must each have %1 entries (got %2, %3, %4)")
                         .arg(wq.cols())
                         .arg(bq.size())
                         .arg(bk.size())
                         .arg(bv.size())};

    AttentionWeights w;
    w.num_heads = num_heads;
    const Eigen::Index d = wq.cols();
    w.in_proj.resize(wq.rows(), 3 * d);
    w.in_proj << wq, wk, wv;
    if (anyBias) {
        w.in_bias.resize(3 * d);
        w.in_bias << bq, bk, bv;
    }
    w.out_proj = wo;
    w.out_bias = bo;
    if (Status status = w.validate(); !status)
        return Error{status.error()};
    return w;
}

Result<AttentionWeights> AttentionWeights::random(int input_dim, int d_model, int num_heads, std::uint64_t seed)
{
    if (Status dims = checkDimensions(input_dim, d_model, num_heads); !dims)
        return Error{dims.error()};
    SplitMix64 rng(seed ^ 0xA77E7710A1ull);
    AttentionWeights w;
    w.num_heads = num_heads;
    const double inBound = 1.0 / std::sqrt(double(input_dim));
    const double outBound = 1.0 / std::sqrt(double(d_model));
    w.in_proj.resize(input_dim, 3 * d_model);
    w.in_bias.resize(3 * d_model);
    w.out_proj.resize(d_model, d_model);
    w.out_bias.resize(d_model);
    fillUniform(w.in_proj, inBound, rng);
    fillUniform(w.in_bias, inBound, rng);
    fillUniform(w.out_proj, outBound, rng);
    fillUniform(w.out_bias, outBound, rng);
    return w;
}

Result<AttentionWeights> AttentionWeights::identity(int input_dim, int d_model, int num_heads)
{
    if (Status dims = checkDimensions(input_dim, d_model, num_heads); !dims)
        return Error{dims.error()};
    AttentionWeights w;
    w.num_heads = num_heads;
    const Matrix eye = Matrix::Identity(input_dim, d_model);
    w.in_proj.resize(input_dim, 3 * d_model);
    w.in_proj << eye, eye, eye;
    w.out_proj = Matrix::Identity(d_model, d_model);
    return w;
}

}  // namespace attn
