#pragma once

#include "core/attention/AttentionTrace.h"

namespace attn {

// Attention within every head, from the trace's projected (and position-rotated) q, k and v:
// for query head h, its key/value head g = trace.kvHeadOf(h), and each block of 64 queries,
//   scores  = Q_h K_g^T                          (rows, key_len)
//   weights = softmax(mask(scores) / scale)      (rows, key_len)   (MaskedSoftmax.h)
//   output  = weights V_g                        (rows, head_dim), head h's columns of concat
// one block at a time, so that a block's scores are still in the cache for its softmax and its
// product with V_g. Fills trace.weights, trace.concat and, with keep_scores, trace.scores.
// Query row i is at position trace.query_offset + i among the keys (0 unless earlier keys were
// cached). With the causal mask the keys after a block's last query are never multiplied: their weights
// are exactly 0 (their raw scores are still computed when kept, for the walkthrough).
//
// From kStreamedKeys keys on (without scores kept or pictures), each block (64 rows: 256 KiB and
// more) is computed in a buffer of its thread, which stays in L2 from one block to the next, and
// then streamed to trace.weights past the caches. Computed in trace.weights, every first store to a
// line read that line from memory first. Narrow heads (d_model 64) at long inputs gain; wider ones
// are level.
//
// picture_factor > 0 (a long input, AttentionOptions::picture_factor): only kept_head's weights are
// stored; each block of every head is computed into a buffer of its thread and reduced into
// trace.pictures (CellBlocks, masked where the views mask) and trace.row_max; no scores are kept.
inline constexpr int kStreamedKeys = 1024;
void attendHeads(AttentionTrace& trace, bool keep_scores, int picture_factor = 0, int kept_head = 0);

// Head `head`'s weights (query_len, key_len) from the trace's q and k, in the blocks of the pass
// that made the trace, by the same code: equal bit for bit to the weights that pass computed.
Matrix recomputeHeadWeights(const AttentionTrace& trace, int head);

}  // namespace attn
