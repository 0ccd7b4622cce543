#pragma once

#include "core/base/Tensor.h"

#include <functional>

namespace attn {

// Which projection a position rotation is given.
enum class RotatedProjection { Queries, Keys };

// Rotates token positions into the projected queries or keys, in place, after the projections
// and before the scores: RoPE turns each pair of a head's features by an angle that grows with
// the token's position, so that Q_h K_h^T depends on how far apart two tokens are.
//   projected: (seq_len, heads * head_dim), head h in columns [h * head_dim, (h + 1) * head_dim);
//   heads: num_heads for the queries, num_kv_heads for the keys;
//   first_position: the position of row 0 (0 unless earlier tokens' keys were cached).
// The engine calls it for the queries, then for the keys; what it writes is what the trace shows
// and what the scores are computed from. Empty: positions are not rotated.
using PositionRotation =
    std::function<void(MatrixRef projected, int heads, int head_dim, int first_position, RotatedProjection which)>;

}  // namespace attn
