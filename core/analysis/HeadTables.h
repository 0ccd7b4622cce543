#pragma once

#include "core/analysis/HeadMetrics.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace attn {

struct AttentionResult;

// What the compare view's table and similarity map show of a result: every head's metrics and the
// head x head Jensen-Shannon divergences, of the weights as the views show them (hidden keys
// hidden).
struct HeadTables {
    std::vector<HeadMetric> metrics;  // num_heads
    MatrixD divergence;               // (num_heads, num_heads)
    int divergence_rows = 0;          // the query rows the divergences are the mean over
    int query_rows = 0;               // all of them
    bool complete = false;            // false: cancelled before the end

    // A result whose heads are all kept: computeHeadMetrics and similarityMatrix of its matrices.
    // A long input's (one head kept): every head recomputed one block of query rows at a time,
    // all heads' rows of a block at once (num_heads x 64 x key_len floats), never a whole head.
    // The metrics use every row and equal computeHeadMetrics of each head's matrix bit for bit.
    // The divergences use every row while num_heads (num_heads - 1) / 2 x query_len x key_len is at
    // most `divergence_cells`, else evenly spaced blocks of rows within it (divergence_rows), each
    // pair's mean over those rows. `cancelled` is asked between blocks: true stops the work.
    static constexpr std::int64_t kDivergenceCells = std::int64_t(1) << 28;
    static HeadTables compute(const AttentionResult& result, std::int64_t divergence_cells = kDivergenceCells,
                              const std::function<bool()>& cancelled = {});
};

}  // namespace attn
