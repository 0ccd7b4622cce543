#include "core/ops/LayerNorm.h"

#include <cmath>
#include <cstdint>

namespace attn {

void layerNorm(const ConstMatrixRef& x, const Eigen::Ref<const RowVector>& gamma,
               const Eigen::Ref<const RowVector>& beta, float eps, MatrixRef out)
{
    const Eigen::Index rows = x.rows();
    const Eigen::Index width = x.cols();
    // Two passes over each row (mean, then the squared deviations), so the variance of a row
    // with a large mean does not lose its digits.
    const bool parallel = std::int64_t(rows) * width >= (std::int64_t(1) << 16);
#pragma omp parallel for if (parallel) schedule(static)
    for (Eigen::Index r = 0; r < rows; ++r) {
        const float mean = x.row(r).sum() / float(width);
        const auto centered = x.row(r).array() - mean;  // (width)
        const float variance = centered.square().sum() / float(width);
        const float inv_std = 1.0f / std::sqrt(variance + eps);
        out.row(r).array() = centered * inv_std * gamma.array() + beta.array();
    }
}

}  // namespace attn
