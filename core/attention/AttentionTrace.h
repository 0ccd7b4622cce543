#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/attention/CellBlocks.h"
#include "core/base/Tensor.h"

#include <memory>
#include <mutex>
#include <vector>

namespace attn {

// Every intermediate of one forward pass, kept so the window can show each step.
// Head h owns columns [h * head_dim, (h + 1) * head_dim) of q and concat. With grouped-query
// attention (num_kv_heads < num_heads) k and v hold num_kv_heads heads, and query head h attends
// with key/value head kvHeadOf(h), whose columns kHead(h) and vHead(h) return.
struct AttentionTrace {
    int num_heads = 0;
    int num_kv_heads = 0;  // divides num_heads; 0 (a trace not made by the engine) = num_heads
    int head_dim = 0;
    float scale = 1.0f;  // the divisor of the scores
    bool causal = false;
    int sliding_window = 0;         // with causal: keys more than sliding_window - 1 back are masked; 0 = none
    std::vector<bool> key_padding;  // per key; empty = none
    // The position of query row 0 among the keys: 0, or the number of cached keys before the
    // queries (AttentionEngine::forwardAppending). The causal mask lets query i see keys
    // 0..query_offset + i.
    int query_offset = 0;

    Matrix q;                     // (query_len, d_model), after the position rotation if any
    Matrix k;                     // (key_len, kv_dim = num_kv_heads * head_dim), after the position rotation
    Matrix v;                     // (key_len, kv_dim)
    std::vector<Matrix> scores;   // num_heads x (query_len, key_len): raw Q_h K_h^T, TraceDetail::Full only
    std::vector<Matrix> probabilities;  // num_heads x (query_len, key_len): the softmax, masked = exactly 0
                                        // (a long input's: only probabilities[kept_head], the others empty)
    Matrix concat;                // (query_len, d_model): the heads' outputs side by side
    Matrix output;                // (query_len, output_dim): concat Wo + bo, or concat without Wo

    // A long input (AttentionOptions::block_factor > 0): only probabilities[kept_head] is kept,
    // every head is in `cell_blocks` (its probabilities in blocks, masked cells as the views mask
    // them) and `row_max` (the largest probability of each query row), and headProbabilities()
    // recomputes the others.
    int kept_head = -1;   // -1: every head's probabilities are kept
    int query_block = 0;  // queries per block of that pass; a recomputed head uses the same blocks
    std::vector<CellBlocks> cell_blocks;  // num_heads, or empty
    std::vector<RowVector> row_max;       // num_heads x (query_len), or empty
    struct RecomputedHead {               // the last head recomputed, shared by copies of the trace
        std::mutex mutex;
        int head = -1;
        std::shared_ptr<const Matrix> probabilities;
    };
    std::shared_ptr<RecomputedHead> recomputed;

    bool keepsEveryHead() const { return kept_head < 0; }
    bool hasCellBlocks() const { return !cell_blocks.empty(); }
    // Head `head`'s probabilities (query_len, key_len): the kept matrix, or (a long input's other heads)
    // recomputed from q, k and v by the same code in the same blocks, so equal bit for bit to what
    // the pass computed. The last one recomputed is kept until another is asked for. Thread-safe.
    // The pointer shares the trace's matrix without owning it: keep the trace alive meanwhile.
    std::shared_ptr<const Matrix> headProbabilities(int head) const;

    int queryLength() const { return int(q.rows()); }
    int keyLength() const { return int(k.rows()); }
    int dModel() const { return num_heads * head_dim; }
    int kvHeads() const { return num_kv_heads > 0 ? num_kv_heads : num_heads; }
    // The key/value head that query head `head` attends with: groups of num_heads / num_kv_heads
    // consecutive query heads share one.
    int kvHeadOf(int head) const { return head / (num_heads / kvHeads()); }
    bool hasScores() const { return !scores.empty(); }

    auto qHead(int head) const { return q.middleCols(head * head_dim, head_dim); }            // (query_len, head_dim)
    auto kHead(int head) const { return k.middleCols(kvHeadOf(head) * head_dim, head_dim); }  // (key_len, head_dim)
    auto vHead(int head) const { return v.middleCols(kvHeadOf(head) * head_dim, head_dim); }  // (key_len, head_dim)
    auto headOutput(int head) const { return concat.middleCols(head * head_dim, head_dim); }  // (query_len, head_dim)

    // True when query row `query` may not look at key `key` (causal, sliding window or padding).
    bool isMasked(int query, int key) const;
    // The steps between raw scores and probabilities, for one entry (needs TraceDetail::Full).
    float scaledScore(int head, int query, int key) const;
    float maskedScore(int head, int query, int key) const;  // -infinity where masked
};

}  // namespace attn
