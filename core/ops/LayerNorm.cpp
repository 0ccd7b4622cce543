#include "core/ops/LayerNorm.h"

#include <cmath>
#include <cstdint>

namespace attn {

void layerNorm(const ConstMatrixRef& x, const Eigen::Ref<const RowVector>& gamma,
               const Eigen::Ref<const RowVector>& beta, float eps, MatrixRef out)
{
    const Eigen::Index rows = x.rows();
    const Eigen::Index width = x.cols();
    // The mean and variance of each row in float64, two passes (mean, then the squared
    // deviations): a hidden state with a few large entries (GPT-2 has some in the hundreds) keeps
    // the digits of its small ones. The cost is small next to the matrix products around it.
    const bool parallel = std::int64_t(rows) * width >= (std::int64_t(1) << 16);
#pragma omp parallel for if (parallel) schedule(static)
    for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::ArrayXd row = x.row(r).transpose().cast<double>();  // (width)
        const double mean = row.mean();
        const Eigen::ArrayXd centered = row - mean;
        const double inv_std = 1.0 / std::sqrt(centered.square().mean() + double(eps));
        out.row(r).array() = (centered * inv_std).cast<float>().transpose() * gamma.array() + beta.array();
    }
}

}  // namespace attn
