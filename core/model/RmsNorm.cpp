#include "core/model/RmsNorm.h"

#include <cmath>
#include <cstdint>

namespace attn {

void rmsNorm(const ConstMatrixRef& x, const Eigen::Ref<const RowVector>& weight, float eps, MatrixRef out)
{
    const Eigen::Index rows = x.rows();
    const Eigen::Index width = x.cols();
    // The mean of the squares in float64, as layerNorm does: the few large entries of a residual
    // stream do not swallow the small ones.
    const bool parallel = std::int64_t(rows) * width >= (std::int64_t(1) << 16);
#pragma omp parallel for if (parallel) schedule(static)
    for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::ArrayXd row = x.row(r).transpose().cast<double>();  // (width)
        const double inv_rms = 1.0 / std::sqrt(row.square().mean() + double(eps));
        out.row(r).array() = (row * inv_rms).cast<float>().transpose() * weight.array();
    }
}

}  // namespace attn
