#pragma once

#include "core/base/Tensor.h"

#include <vector>

namespace attn {

using ScoreRowRef = Eigen::Ref<RowVector, 0, Eigen::InnerStride<1>>;  // one row of a score block

// One query's row of raw scores (key_len) in place becomes its attention weights:
//   weights = softmax(mask(scores) / scale)
// Keys from visible_keys on (the causal mask) and keys flagged in key_padding (empty: none) are
// masked: their weight is exactly 0, and a row with no visible key is all zeros.
// inv_scale = 1 / scale. The entries from visible_keys on need not have been computed.
void maskedSoftmax(ScoreRowRef row, int visible_keys, const std::vector<bool>& key_padding, float inv_scale);

}  // namespace attn
