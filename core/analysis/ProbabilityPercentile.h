#pragma once

#include "core/base/MaskMatrix.h"
#include "core/base/Tensor.h"

#include <functional>
#include <optional>

namespace attn {

struct AttentionResult;

// AttentionDisplay::percentile of every head's weights as the views show them
// (AttentionDisplay::headProbabilities: a long input's heads recomputed, hidden keys hidden) outside
// `mask` (query_len, key_len; empty: none masked), the same number exactly, without holding the
// weights: two passes over the heads a block of query rows at a time (forEachHeadRows). The first
// counts the weights by the upper 16 bits of their order-preserving bit pattern, the second, by the
// lower 16, only those in the one or two bins that hold the order statistics the percentile
// interpolates between. nullopt when `cancelled` said so between blocks.
std::optional<double> probabilityPercentile(const AttentionResult& result, const MaskMatrix& mask, double p,
                                       const std::function<bool()>& cancelled = {});

// The same for one matrix (AttentionDisplay::percentile({weights}, mask, p), the same number)
// without copying it: for a long input's compared heads, 67 million weights each at 8,192 tokens.
double matrixPercentile(const Matrix& weights, const MaskMatrix& mask, double p);

}  // namespace attn
