#pragma once

#include <optional>
#include <vector>

namespace attn {

// One token of a lens cell: its id and its probability.
struct LensEntry {
    int id = 0;
    double p = 0.0;
};

// One (layer, position) of the logit lens: the K most likely tokens, p descending (ties: the
// lower id first), and the tracked token's p and rank (the number of ids before it in that order).
struct LensCell {
    std::vector<LensEntry> top;
    double tracked_p = 0.0;
    int tracked_rank = 0;
};

// The logit lens of a run: (L + 1) x T cells, row l the prediction read from hidden_states[l]
// (row L the model's own). A cell is filled once `done` says so (the last position comes first).
struct LensResult {
    int num_rows = 0;  // L + 1
    int seq_len = 0;   // T
    int top_k = 0;
    std::optional<int> tracked;   // the tracked token's id, if any
    std::vector<LensCell> cells;  // row-major (L + 1, T)
    std::vector<bool> done;       // per position: every row of it is filled

    const LensCell& at(int row, int position) const { return cells[size_t(row) * size_t(seq_len) + size_t(position)]; }
    LensCell& at(int row, int position) { return cells[size_t(row) * size_t(seq_len) + size_t(position)]; }
};

}  // namespace attn
