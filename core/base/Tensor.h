#pragma once

#include <Eigen/Core>

namespace attn {

// Row-major so that one token's vector is one contiguous row: X is (seq_len, dim).
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

using MatrixRef = Eigen::Ref<Matrix>;
using ConstMatrixRef = Eigen::Ref<const Matrix>;

// True when no entry is NaN or infinite. Eigen's allFinite() walks the entries one by one, with
// a branch each; x * 0 is 0 for finite x and NaN otherwise, so one vectorised sum answers the
// same question many times faster.
template <typename Derived>
bool allFinite(const Eigen::DenseBase<Derived>& m)
{
    return m.size() == 0 || (m.derived().array() * typename Derived::Scalar(0)).sum() == 0;
}

}  // namespace attn
