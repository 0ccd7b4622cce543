#pragma once

#include "core/attention/AttentionTrace.h"

namespace attn {

// Attention within every head, from the trace's projected (and position-rotated) q, k and v:
// for query head h, its key/value head g = trace.kvHeadOf(h), and each block of 64 queries,
//   scores  = Q_h K_g^T                          (rows, key_len)
//   probabilities = softmax(mask(scores) / scale)   (rows, key_len)   (MaskedSoftmax.h)
//   output        = probabilities V_g               (rows, head_dim), head h's columns of concat
// one block at a time, so that a block's scores are still in the cache for its softmax and its
// product with V_g. Fills trace.probabilities, trace.concat and, with keep_scores, trace.scores.
// Query row i is at position trace.query_offset + i among the keys (0 unless earlier keys were
// cached). With the causal mask the keys after a block's last query are never multiplied: their
// probabilities are exactly 0 (their raw scores are still computed when kept, for the walkthrough).
//
// From kStreamedKeys keys on (without scores kept or cell blocks), each block (64 rows: 256 KiB and
// more) is computed in a buffer of its thread, which stays in L2 from one block to the next, and
// then streamed to trace.probabilities past the caches. Computed in trace.probabilities, every
// first store to a line read that line from memory first. Narrow heads (d_model 64) at long inputs gain; wider ones
// are level.
//
// block_factor > 0 (a long input, AttentionOptions::block_factor): only kept_head's probabilities
// are stored; each block of every head is computed into a buffer of its thread and reduced into
// trace.cell_blocks (CellBlocks, masked where the views mask) and trace.row_max; no scores are kept.
inline constexpr int kStreamedKeys = 1024;
void attendHeads(AttentionTrace& trace, bool keep_scores, int block_factor = 0, int kept_head = 0);

// Head `head`'s probabilities (query_len, key_len) from the trace's q and k, in the blocks of the
// pass that made the trace, by the same code: equal bit for bit to what that pass computed.
Matrix recomputeHeadProbabilities(const AttentionTrace& trace, int head);

}  // namespace attn
