#include "core/attention/MaskedSoftmax.h"

#include <cmath>
#include <limits>

namespace attn {

// Subtracting the row's maximum first keeps exp() from overflowing for large scores (dividing by
// the scale, a positive number, after the subtraction leaves the maximum where it is); masked keys
// are set to exactly 0 rather than exp(-inf).
void maskedSoftmax(ScoreRowRef row, int visible_keys, const std::vector<bool>& key_padding, float inv_scale)
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

}  // namespace attn
