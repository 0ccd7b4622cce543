#include "core/attention/MaskedSoftmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {
namespace {

using ScoreRowRef = Eigen::Ref<RowVector, 0, Eigen::InnerStride<1>>;  // one query's row of scores

// One row: the keys from visible_keys on are masked, as are the padded ones. Always inlined into
// the loop over a block's rows: the masked rows of a causal pass are short, so a call per row
// would be a large part of each.
// Subtracting the row's maximum first keeps exp() from overflowing for large scores (dividing by
// the scale, a positive number, after the subtraction leaves the maximum where it is); masked keys
// are set to exactly 0 rather than exp(-inf).
EIGEN_ALWAYS_INLINE void maskedSoftmaxRow(ScoreRowRef row, int visible_keys, const std::vector<bool>& key_padding,
                                          float inv_scale)
{
    auto visible = row.head(visible_keys).array();
    row.tail(row.size() - visible_keys).setZero();
    if (!key_padding.empty()) {
        for (int j = 0; j < visible_keys; ++j)
            if (key_padding[size_t(j)])
                visible[j] = -std::numeric_limits<float>::infinity();
    }
    const float max = visible_keys > 0 ? visible.maxCoeff() : -std::numeric_limits<float>::infinity();
    if (!std::isfinite(max)) {
        visible.setZero();
        return;
    }
    visible = ((visible - max) * inv_scale).exp();
    // Eigen's vectorised exp() is not exactly 0 at -inf on every instruction set (a build without
    // -march=native gives ~1e-38): padded keys are set to exactly 0 again.
    if (!key_padding.empty()) {
        for (int j = 0; j < visible_keys; ++j)
            if (key_padding[size_t(j)])
                visible[j] = 0.0f;
    }
    visible *= 1.0f / visible.sum();
}

// A causal row under a sliding window: the keys before `first_key` are masked too; the softmax
// runs over the keys first_key .. visible - 1 (key_padding shifted to match).
void windowedRow(ScoreRowRef row, int first_key, int visible, const std::vector<bool>& key_padding, float inv_scale)
{
    row.head(first_key).setZero();
    std::vector<bool> padding;
    if (!key_padding.empty())
        padding.assign(key_padding.begin() + first_key, key_padding.end());
    maskedSoftmaxRow(row.tail(row.size() - first_key), visible - first_key, padding, inv_scale);
}

}  // namespace

void maskedSoftmax(BlockRef scores, int first_query, bool causal, const std::vector<bool>& key_padding, float inv_scale,
                   int sliding_window)
{
    const int key_len = int(scores.cols());
    if (causal && sliding_window > 0) {
        for (int i = 0; i < scores.rows(); ++i) {
            const int query = first_query + i;
            const int visible = std::min(key_len, query + 1);
            windowedRow(scores.row(i), std::clamp(query - sliding_window + 1, 0, visible), visible, key_padding,
                        inv_scale);
        }
        return;
    }
    for (int i = 0; i < scores.rows(); ++i) {
        const int visible = causal ? std::min(key_len, first_query + i + 1) : key_len;
        maskedSoftmaxRow(scores.row(i), visible, key_padding, inv_scale);
    }
}

}  // namespace attn
