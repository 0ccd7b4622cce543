#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/attention/AttentionWeights.h"
#include "core/base/Result.h"

#include <QString>

#include <cstdint>
#include <functional>

namespace attn {

// What one request will hold at its peak: the forward pass, the trace it keeps, the views' copies
// of it and the JSON written from it.
struct MemoryRequest {
    int query_len = 0;            // T_q
    int key_len = 0;              // T_kv (the same as T_q for self-attention)
    bool self_attention = true;   // keys from the queries' input: a longer input lengthens both
    int num_heads = 0;            // h
    int d_model = 0;              // h * head_dim: Q and concat columns
    int kv_dim = 0;               // K and V columns (grouped-query attention: fewer); 0 = d_model
    int input_dim = 0;            // d_in
    int output_dim = 0;           // d_out
    std::int64_t parameters = 0;  // the layer's weights, in floats
    TraceDetail detail = TraceDetail::Probabilities;
    int view_copies = 0;             // heatmaps of (T_q, T_kv) held at once (a grid: h; one head: 1)
    std::int64_t view_cells = 0;     // cells one heatmap holds at most (a reduced one), 0 = every cell
    bool masked = false;             // causal or padded: the views hold a mask of every cell
    int extra_matrices = 0;          // further (T_q, T_kv) floats held (a comparison: A, B, A - B)
    bool json = false;               // the result as JSON, written as it is made
    std::int64_t held = 0;           // bytes of an earlier result kept until this one replaces it
    // A long input's route (AttentionPipeline::blockFactorFor > 0): blocks of block_factor
    // cells a side reduce every head as it is computed (two floats and a flag per block, and each
    // head's row maxima); the probabilities of only kept_heads heads are held at once (the window counts
    // 3: the kept one, the one recomputed last, one a view may still hold). 0: every head's.
    int block_factor = 0;
    int kept_heads = 0;
    // A whole model's logit lens beside the pass, at an input of `seq_len` tokens: the residual
    // stream the pass keeps for it and what the lens holds besides (LensMemory, from
    // LogitLens::extraBytes). Null: no lens.
    std::function<std::int64_t(int seq_len)> lens;
};

// The request's bytes by what they are for.
struct MemoryEstimate {
    std::int64_t baseline = 0;  // the program itself (libraries, fonts, the event loop)
    std::int64_t vectors = 0;   // input rows, Q, K, V, head outputs, output, the layer's weights
    std::int64_t probabilities = 0;  // h (or kept_heads) * T_q * T_kv floats, and the extra matrices
    std::int64_t scores = 0;    // raw scores for the walkthrough (TraceDetail::Full), as many again
    std::int64_t view_copies = 0;  // the heatmaps' own copies: values, mask, colour-map data and image;
                                   // a long input's reduced heads
    std::int64_t json = 0;      // the JSON being written: a chunk of text and a block of rows
    std::int64_t held = 0;      // the earlier result still shown
    std::int64_t lens = 0;      // the logit lens and the residual stream it reads

    std::int64_t total() const
    {
        return baseline + vectors + probabilities + scores + view_copies + json + held + lens;
    }
};

// Memory planned before computing, never discovered: the program estimates what a request takes
// and either fits it in a budget or refuses it, saying what would fit.
class MemoryPlan {
public:
    // Bytes a heatmap holds per cell it draws: its float copy (4), its mask (1), QCustomPlot's
    // double colour-map data (8), the map's ARGB image (4), its top X % dimming (1) and the
    // exported image of up to 2 x 2 pixels per cell (16) once cells are many. With a mask, the
    // views' shared mask and the copy a plot reduces off the GUI thread add 2 bytes per cell of
    // the matrix, drawn or not.
    static constexpr std::int64_t kPictureBytesPerCell = 34;
    // Bytes of JSON text per attention probability: up to 9 significant digits, a sign, a point and a
    // comma, with the growth of the buffer that holds it.
    static constexpr std::int64_t kJsonBytesPerValue = 16;
    // Query rows of every head the JSON's head metrics hold at a time (HeadTables' block).
    static constexpr std::int64_t kJsonHeadTableRows = 64;
    static constexpr std::int64_t kBaselineBytes = std::int64_t(256) << 20;

    static MemoryEstimate estimate(const MemoryRequest& request);
    // One pass of `weights` over T_q queries and T_kv keys (0: self-attention), nothing drawn.
    static MemoryRequest forPass(int query_len, int key_len, const AttentionWeights& weights, TraceDetail detail);

    // The machine's physical memory in bytes (0 when it cannot be read).
    static std::int64_t physicalMemory();
    // Half the physical memory, and no more than 3/4 of an address-space limit (ulimit -v,
    // prlimit --as) when one is set: the rest is the program's libraries, stacks and allocator.
    static std::int64_t defaultBudget();

    // The request against the budget. Refused: one line with what it needs, the budget, and the
    // longest input (and, for several heads, the fewest heads) that would fit.
    static Status check(const MemoryRequest& request, std::int64_t budget);

    // The longest input that fits (T_q, and T_kv with it for self-attention), 0 if none.
    static int longestInputThatFits(MemoryRequest request, std::int64_t budget);
    // The most heads that fit at this length, 0 if not even one (the heads' width kept).
    static int mostHeadsThatFit(MemoryRequest request, std::int64_t budget);

    // "2G", "1.5 GB", "512M", "800MiB", "1073741824" (bytes): binary units, at least 64 MiB.
    static Result<std::int64_t> parseSize(const QString& text);
    // A memory budget as the window's field takes it: parseSize's units and limits (a bare
    // number is bytes, as for --memory-budget), and no more than `physical` bytes of memory
    // (physicalMemory(); 0 = unknown, not checked).
    static Result<std::int64_t> parseBudget(const QString& text, std::int64_t physical);
    // "1.6 GB" (binary gigabytes, one decimal), "640 MB" below one.
    static QString formatSize(std::int64_t bytes);
};

}  // namespace attn
