#pragma once

#include <Eigen/Core>

namespace attn {

// Which cells a view must not colour as data: true = masked (e.g. above the diagonal of a causal
// head). Same shape as the matrix it belongs to, or empty for "nothing masked".
using MaskMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace attn
