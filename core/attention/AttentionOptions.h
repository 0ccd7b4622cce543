#pragma once

#include "core/attention/PositionRotation.h"
#include "core/base/Result.h"

#include <QString>

#include <functional>

#include <vector>

namespace attn {

// What the scores are divided by.
struct ScaleSetting {
    enum class Mode { Sqrt, None, Custom };
    Mode mode = Mode::Sqrt;
    double custom = 1.0;

    double divisor(int head_dim) const;
    QString toString() const;                           // "sqrt", "none" or the number
    static Result<ScaleSetting> parse(const QString&);  // the inverse; refuses 0, negatives, NaN

    bool operator==(const ScaleSetting&) const = default;
};

enum class TraceDetail {
    Probabilities,  // probabilities, Q/K/V, head outputs and the output: what a view or a benchmark needs
    Full,     // also every head's raw scores (seq_len^2 more floats per head), for the walkthrough
};

struct AttentionOptions {
    bool causal = false;  // query i sees keys 0..i
    // With causal, > 0: query i sees only keys i - sliding_window + 1 .. i (Mistral's window,
    // key j visible when i - j < sliding_window). 0: no window.
    int sliding_window = 0;
    ScaleSetting scale;
    // One flag per key, true = padding: that key gets probability 0 from every query (PyTorch's
    // key_padding_mask). Empty means no padding.
    std::vector<bool> key_padding;
    TraceDetail detail = TraceDetail::Full;
    // Applied to Q and K between the projections and the scores (RoPE); empty: none.
    PositionRotation rotate_positions;
    // True when the caller knows every weight is finite: the weights passed validate() and have not
    // changed since (a loaded model's, read once, used for every pass). The projections then skip
    // their own scan of the weights, which for a few tokens costs as much memory traffic as the
    // products themselves.
    bool weights_validated = false;
    // Long inputs: > 0 keeps the probabilities of `kept_head` alone and reduces every head, as its
    // blocks of queries are computed, to blocks of block_factor x block_factor cells (the trace's
    // cell_blocks, with the largest probability of each row); the other heads are recomputed when
    // asked for (AttentionTrace::headProbabilities), exactly. No raw scores are kept then.
    // 0: every head's probabilities kept, nothing reduced.
    int block_factor = 0;
    int kept_head = 0;
    // Applied to the heads' outputs side by side, concat (query_len, d_model), between the
    // attention and the output projection (head ablation, patching of z); what it writes is what
    // the trace keeps and what is projected. Empty: nothing (full passes only, not forwardAppending).
    std::function<void(Matrix& concat)> edit_head_outputs;
};

}  // namespace attn
