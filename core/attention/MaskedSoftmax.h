#pragma once

#include "core/base/Tensor.h"
#include "core/ops/LinearColumns.h"

#include <vector>

namespace attn {

// A block of raw scores (rows, key_len) in place becomes the attention weights of its queries:
//   weights = softmax(mask(scores) / scale), row by row,
// where row i is query first_query + i. Masked keys (with `causal`, the keys after the query;
// keys flagged in key_padding, empty for none) get weight exactly 0, and a row with no visible
// key is all zeros. With `causal` the scores of the masked keys need not have been computed.
// inv_scale = 1 / scale. With `causal` and sliding_window > 0, query q also masks the keys before
// q - sliding_window + 1.
void maskedSoftmax(BlockRef scores, int first_query, bool causal, const std::vector<bool>& key_padding, float inv_scale,
                   int sliding_window = 0);

}  // namespace attn
