#pragma once

#include <cstdint>

#include "core/base/Tensor.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace attn {

struct AttentionResult;

// One titled matrix of numbers as the walkthrough shows it. Masked entries hold -infinity.
struct WalkthroughTable {
    QString title;           // "Q_h (head 2)"
    QStringList row_labels;  // one per row of values
    QStringList column_labels;
    Matrix values;                      // (rows, columns)
    int highlighted_row = -1;           // the selected query's row, or -1
    int first_row = 0;                  // the matrix row of row 0 (a long input's T x T steps: the query's row)
    int highlighted_first_column = -1;  // a highlighted column range (the head's part of concat), or -1
    int highlighted_column_count = 0;
};

// One step of the tutorial order: what it is, the formula, and its tables (empty when the trace
// does not hold what the step needs; `unavailable` then says why).
struct WalkthroughStep {
    int number = 0;   // 1..10
    QString label;    // "2b": a step shown after step `number`, not counted in kStepCount; empty otherwise
    QString title;    // "Raw scores"
    QString formula;  // "s_j = q · k_j"
    std::vector<WalkthroughTable> tables;
    QString unavailable;
};

// The numbers of every step of multi-head attention for one head and one query token, read from
// an AttentionResult's trace (nothing is recomputed except what a step defines: step 7's w_j v_j
// and the element-wise products q_i k_j,i of the score breakdown).
struct WalkthroughData {
    static constexpr int kStepCount = 10;
    // Up to this many scores (T_q x T_kv) the score and weight steps show the whole matrix of the
    // head; beyond, only the selected query's row, computed for that head and query alone.
    static constexpr std::int64_t kWholeMatrixCells = 512 * 512;

    int head = 0;
    int query = 0;
    std::vector<WalkthroughStep> steps;  // kStepCount, in order
    // Rotary positions (Llama family, GPT-NeoX), shown as step "2b" between steps 2 and 3: the
    // head's q and k before and after the rotation, K before it, and the angles at the query's
    // position. No tables without rotary positions.
    WalkthroughStep rotation;
    // Which dimensions make each raw score: products(j, i) = q_i * k_j,i, so row j sums to q · k_j.
    WalkthroughTable products;  // (key_len, head_dim)
    // What the steps show of a long input ("the T x T steps show query 5's row of 2,166"), or empty.
    QString note;

    // Head and query are clamped into range. An empty result (no heads or no tokens) gives no steps.
    static WalkthroughData build(const AttentionResult& result, int head, int query);

    const WalkthroughStep& step(int number) const { return steps[size_t(number - 1)]; }
};

}  // namespace attn
