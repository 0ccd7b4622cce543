#include "core/attention/AttentionWeights.h"

#include "core/base/SplitMix64.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

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

// The number of heads, and of key/value heads when they are grouped (0: as many as the heads).
Status checkHeads(int num_heads, int num_kv_heads)
{
    if (num_heads <= 0)
        return Error{QStringLiteral("the number of heads must be a positive integer, got %1").arg(num_heads)};
    if (num_kv_heads < 0)
        return Error{
            QStringLiteral("the number of key/value heads must be a positive integer, got %1").arg(num_kv_heads)};
    if (num_kv_heads > 0 && num_heads % num_kv_heads != 0)
        return Error{QStringLiteral("the number of key/value heads (%1) must divide the number of heads (%2)")
                         .arg(num_kv_heads)
                         .arg(num_heads)};
    return {};
}

// The size of a matrix dimension as an int for the checks, saturated rather than wrapped.
int clampedSize(Eigen::Index size)
{
    return int(std::min<Eigen::Index>(size, std::numeric_limits<int>::max()));
}

}  // namespace

int AttentionWeights::dModel() const
{
    if (num_heads <= 0 || num_kv_heads <= 0)  // Wq, Wk and Wv of equal width
        return int(in_proj.cols() / 3);
    // in_proj has (num_heads + 2 * num_kv_heads) * head_dim columns.
    return int(in_proj.cols() * num_heads / (num_heads + 2 * std::int64_t(num_kv_heads)));
}

std::int64_t AttentionWeights::parameterCount() const
{
    return in_proj.size() + in_bias.size() + out_proj.size() + out_bias.size();
}

Status AttentionWeights::checkDimensions(int input_dim, int d_model, int num_heads, int num_kv_heads)
{
    if (Status heads = checkHeads(num_heads, num_kv_heads); !heads)
        return heads;
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
    const std::int64_t kv_dim = num_kv_heads > 0 ? std::int64_t(d_model) / num_heads * num_kv_heads : d_model;
    const std::int64_t parameters = std::int64_t(input_dim) * (d_model + 2 * kv_dim) + std::int64_t(d_model) * d_model;
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
    if (num_kv_heads != 0) {
        if (Status heads = checkHeads(num_heads, num_kv_heads); !heads)
            return heads;
        const std::int64_t all_heads = num_heads + 2 * std::int64_t(num_kv_heads);
        if (in_proj.size() == 0 || in_proj.cols() % all_heads != 0)
            return Error{QStringLiteral("the input projection must have (num_heads + 2 * num_kv_heads) * head_dim = "
                                        "(%1 + 2 * %2) * head_dim columns, got %3")
                             .arg(num_heads)
                             .arg(num_kv_heads)
                             .arg(in_proj.cols())};
    } else if (in_proj.cols() % 3 != 0 || in_proj.size() == 0) {
        return Error{QStringLiteral("the input projection must have 3 * d_model columns, got %1").arg(in_proj.cols())};
    }
    if (Status dims = checkDimensions(inputDim(), dModel(), num_heads, num_kv_heads); !dims)
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

Result<AttentionWeights> AttentionWeights::fromParts(int num_heads, ConstMatrixRef wq, ConstMatrixRef wk,
                                                     ConstMatrixRef wv, const RowVector& bq, const RowVector& bk,
                                                     const RowVector& bv, Matrix wo, RowVector bo)
{
    return fromParts(num_heads, num_heads, wq, wk, wv, bq, bk, bv, std::move(wo), std::move(bo));
}

Result<AttentionWeights> AttentionWeights::fromParts(int num_heads, int num_kv_heads, ConstMatrixRef wq,
                                                     ConstMatrixRef wk, ConstMatrixRef wv, const RowVector& bq,
                                                     const RowVector& bk, const RowVector& bv, Matrix wo, RowVector bo)
{
    const bool grouped = num_kv_heads != 0 && num_kv_heads != num_heads;
    if (grouped) {
        if (Status dims = checkDimensions(clampedSize(wq.rows()), clampedSize(wq.cols()), num_heads, num_kv_heads);
            !dims)
            return Error{dims.error()};
    }
    const Eigen::Index kv_dim = grouped ? wq.cols() / num_heads * num_kv_heads : wq.cols();
    const auto shape = [](const ConstMatrixRef& m) { return QStringLiteral("%1x%2").arg(m.rows()).arg(m.cols()); };
    if (wk.rows() != wq.rows() || wk.cols() != kv_dim || wv.rows() != wk.rows() || wv.cols() != wk.cols()) {
        if (!grouped)
            return Error{QStringLiteral("Wq (%1), Wk (%2) and Wv (%3) must have the same shape")
                             .arg(shape(wq), shape(wk), shape(wv))};
        return Error{QStringLiteral("Wk (%1) and Wv (%2) must have the shape %3x%4: Wq's %3 rows, and %5 key/value "
                                    "heads of %6 columns")
                         .arg(shape(wk), shape(wv))
                         .arg(wq.rows())
                         .arg(kv_dim)
                         .arg(num_kv_heads)
                         .arg(wq.cols() / num_heads)};
    }
    const bool anyBias = bq.size() || bk.size() || bv.size();
    if (anyBias && (bq.size() != wq.cols() || bk.size() != kv_dim || bv.size() != kv_dim)) {
        if (!grouped)
            return Error{QStringLiteral("the biases bq, bk, bv must each have %1 entries (got %2, %3, %4)")
                             .arg(wq.cols())
                             .arg(bq.size())
                             .arg(bk.size())
                             .arg(bv.size())};
        return Error{QStringLiteral("the biases bq, bk, bv must have %1, %2 and %2 entries (got %3, %4, %5)")
                         .arg(wq.cols())
                         .arg(kv_dim)
                         .arg(bq.size())
                         .arg(bk.size())
                         .arg(bv.size())};
    }

    AttentionWeights w;
    w.num_heads = num_heads;
    w.num_kv_heads = grouped ? num_kv_heads : 0;
    w.in_proj.resize(wq.rows(), wq.cols() + 2 * kv_dim);  // (input_dim, d_model + 2 * kv_dim)
    w.in_proj << wq, wk, wv;
    if (anyBias) {
        w.in_bias.resize(wq.cols() + 2 * kv_dim);
        w.in_bias << bq, bk, bv;
    }
    w.out_proj = std::move(wo);
    w.out_bias = std::move(bo);
    if (Status status = w.validate(); !status)
        return Error{status.error()};
    return w;
}

Result<AttentionWeights> AttentionWeights::fromFused(int num_heads, int num_kv_heads, Matrix in_proj, RowVector in_bias,
                                                     Matrix wo, RowVector bo)
{
    AttentionWeights w;
    w.num_heads = num_heads;
    w.num_kv_heads = num_kv_heads == num_heads ? 0 : num_kv_heads;
    w.in_proj = std::move(in_proj);
    w.in_bias = std::move(in_bias);
    w.out_proj = std::move(wo);
    w.out_bias = std::move(bo);
    if (Status status = w.validate(); !status)
        return Error{status.error()};
    return w;
}

Result<AttentionWeights> AttentionWeights::random(int input_dim, int d_model, int num_heads, std::uint64_t seed)
{
    return random(input_dim, d_model, num_heads, 0, seed);
}

Result<AttentionWeights> AttentionWeights::random(int input_dim, int d_model, int num_heads, int num_kv_heads,
                                                  std::uint64_t seed)
{
    if (Status dims = checkDimensions(input_dim, d_model, num_heads, num_kv_heads); !dims)
        return Error{dims.error()};
    SplitMix64 rng(seed ^ 0xA77E7710A1ull);
    AttentionWeights w;
    w.num_heads = num_heads;
    w.num_kv_heads = num_kv_heads == num_heads ? 0 : num_kv_heads;
    const int kv_dim = w.num_kv_heads > 0 ? d_model / num_heads * num_kv_heads : d_model;
    const double inBound = 1.0 / std::sqrt(double(input_dim));
    const double outBound = 1.0 / std::sqrt(double(d_model));
    w.in_proj.resize(input_dim, d_model + 2 * kv_dim);
    w.in_bias.resize(d_model + 2 * kv_dim);
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
