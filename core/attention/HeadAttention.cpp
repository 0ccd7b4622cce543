#include "core/attention/HeadAttention.h"

#include "core/attention/BlockBuffer.h"
#include "core/attention/BlockProbabilities.h"
#include "core/attention/MaskedSoftmax.h"
#include "core/ops/LinearColumns.h"
#include "core/ops/ParallelWork.h"
#include "core/ops/StreamingCopy.h"
#include "core/ops/Transpose.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attn {
namespace {

// Rows of one head's score matrix handled as one task: small enough that the tasks of a causal
// pass (whose later blocks see more keys) balance across cores, large enough for an efficient GEMM.
constexpr int kQueryBlock = 64;

// Asks the kernel to back a large matrix with 2 MiB pages before it is first written: at
// 2048 tokens the 8 heads' weights are 128 MiB of fresh memory, and faulting it in as 4 KiB pages
// costs more than twice the CPU time it takes as 2 MiB pages. Only the whole
// 2 MiB pages inside the matrix are advised; it is a hint, and without Linux it does nothing.
void adviseHugePages(Matrix& m)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(m.data()) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(m.data() + m.size()) & ~(kHugePage - 1);
    if (end > begin)
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    Q_UNUSED(m);
#endif
}

// num_heads matrices of (query_len, key_len), each entry to be written by attendHeads.
void allocateHeadMatrices(std::vector<Matrix>& matrices, int num_heads, int query_len, int key_len)
{
    matrices.resize(size_t(num_heads));
    for (Matrix& m : matrices) {
        m.resize(query_len, key_len);  // (query_len, key_len)
        adviseHugePages(m);
    }
}

// output = weights V_g: weights (rows, keys), v_g (keys, head_dim), output (rows, head_dim).
void weightedValues(const ConstBlockRef& weights, const ConstBlockRef& v_g, BlockRef output)
{
    directProduct(weights, v_g, output);
}

// K_g^T for every key/value head g, rows [g * head_dim, (g+1) * head_dim), and V_g's rows made
// contiguous, rows [g * key_len, (g+1) * key_len): every block of a head reads all of them, row by
// row (directProduct reads its right-hand side in place), so they are materialised once rather
// than read kv_dim floats apart. Only K_g^T of `kv_head_only`
// when it is >= 0. An orphaned `omp for`: keys_t and values are sized before the parallel region.
void sizeKeysValues(const AttentionTrace& trace, int kv_head_only, Matrix& keys_t, Matrix& values)
{
    keys_t.resize(trace.kvHeads() * trace.head_dim, trace.keyLength());
    values.resize(kv_head_only >= 0 ? 0 : trace.kvHeads() * trace.keyLength(), trace.head_dim);
}

void materialiseKeysValues(const AttentionTrace& trace, int kv_head_only, Matrix& keys_t, Matrix& values)
{
    const int num_kv_heads = trace.kvHeads();
    const int head_dim = trace.head_dim;
    const int key_len = trace.keyLength();
#pragma omp for schedule(static)
    for (int kv_head = 0; kv_head < num_kv_heads; ++kv_head) {
        if (kv_head_only >= 0 && kv_head != kv_head_only)
            continue;
        transposeInto(trace.k.middleCols(kv_head * head_dim, head_dim), keys_t.middleRows(kv_head * head_dim, head_dim));
        if (kv_head_only < 0)
            values.middleRows(kv_head * key_len, key_len) = trace.v.middleCols(kv_head * head_dim, head_dim);
    }
}

// Queries per block: kQueryBlock, or for a long input's cell blocks the multiple of the block
// factor nearest above it, so that no cell block spans two blocks of queries.
int queryBlockRows(int block_factor)
{
    if (block_factor <= 1)
        return kQueryBlock;
    return block_factor * ((kQueryBlock + block_factor - 1) / block_factor);
}

// The views' mask of rows first .. + rows - 1 (AttentionTrace::isMasked, a row at a time).
void maskRows(const AttentionTrace& trace, int first, int rows, const MaskMatrix& padded, MaskMatrix& mask)
{
    const int key_len = trace.keyLength();
    for (int i = 0; i < rows; ++i) {
        auto row = mask.row(i);
        if (padded.size() > 0)
            row = padded;
        else
            row.setConstant(false);
        const int query = trace.query_offset + first + i;
        if (trace.causal && query + 1 < key_len)
            row.tail(key_len - query - 1).setConstant(true);
        if (trace.causal && trace.sliding_window > 0) {
            const int too_far = std::min(key_len, query - trace.sliding_window + 1);
            if (too_far > 0)
                row.head(too_far).setConstant(true);
        }
    }
}

}  // namespace

void attendHeads(AttentionTrace& trace, bool keep_scores, int block_factor, int kept_head)
{
    const int num_heads = trace.num_heads;
    const int head_dim = trace.head_dim;
    const int query_len = trace.queryLength();
    const int key_len = trace.keyLength();
    const bool reduced = block_factor > 0;
    keep_scores = keep_scores && !reduced;

    trace.query_block = queryBlockRows(block_factor);
    if (reduced) {
        trace.kept_head = std::clamp(kept_head, 0, std::max(0, num_heads - 1));
        trace.probabilities.assign(size_t(num_heads), Matrix());
        trace.probabilities[size_t(trace.kept_head)].resize(query_len, key_len);
        adviseHugePages(trace.probabilities[size_t(trace.kept_head)]);
        trace.cell_blocks.assign(size_t(num_heads), CellBlocks::sized(query_len, key_len, block_factor));
        trace.row_max.assign(size_t(num_heads), RowVector::Zero(query_len));
        trace.recomputed = std::make_shared<AttentionTrace::RecomputedHead>();
    } else {
        allocateHeadMatrices(trace.probabilities, num_heads, query_len, key_len);
    }
    if (keep_scores)
        allocateHeadMatrices(trace.scores, num_heads, query_len, key_len);
    trace.concat.resize(query_len, num_heads * head_dim);  // (query_len, d_model)

    // The views' mask of the padded keys, for the cell blocks (causal rows are made per block).
    const bool any_padding =
        std::find(trace.key_padding.begin(), trace.key_padding.end(), true) != trace.key_padding.end();
    const bool masked = reduced && (trace.causal || any_padding);
    MaskMatrix padded;
    if (masked && any_padding) {
        padded = MaskMatrix::Constant(1, key_len, false);
        for (int key = 0; key < key_len && key < int(trace.key_padding.size()); ++key)
            padded(0, key) = trace.key_padding[size_t(key)];
    }

    Matrix keys_t;  // (num_kv_heads * head_dim, key_len)
    Matrix values;  // (num_kv_heads * key_len, head_dim)
    const int block_rows = trace.query_block;
    const int blocks = (query_len + block_rows - 1) / block_rows;
    const std::int64_t attention_work = std::int64_t(num_heads) * query_len * key_len * head_dim;
    sizeKeysValues(trace, -1, keys_t, values);

#pragma omp parallel if (attention_work >= kParallelWork)
    {
        materialiseKeysValues(trace, -1, keys_t, values);
        // Each thread's block of weights, reused: a long input's heads (the kept head's copied out),
        // or many keys' (streamed out).
        const bool streamed = !reduced && !keep_scores && key_len >= kStreamedKeys;
        const bool buffered = reduced || streamed;
        BlockBuffer scratch(buffered ? block_rows : 0, key_len);  // (block_rows, key_len)
        MaskMatrix block_mask = masked ? MaskMatrix(block_rows, key_len) : MaskMatrix();
        BlockRowReducer reducer;

#pragma omp for schedule(dynamic, 1)
        for (int task = 0; task < num_heads * blocks; ++task) {
            const int head = task / blocks;
            const int kv_head = trace.kvHeadOf(head);
            const int first = (task % blocks) * block_rows;
            const int rows = std::min(block_rows, query_len - first);
            const int keys = keysOfBlock(trace, first, rows);

            const auto v_g = values.middleRows(kv_head * key_len, key_len);  // (key_len, head_dim)
            BlockRef w = buffered ? scratch.rows(first, rows)
                                  : BlockRef(trace.probabilities[size_t(head)].middleRows(first, rows));  // (rows, key_len)

            if (keep_scores) {
                // scores = Q_h K_g^T, all keys (the walkthrough shows the masked ones' too), kept in s
                auto s = trace.scores[size_t(head)].middleRows(first, rows);  // (rows, key_len)
                directProduct(trace.qHead(head).middleRows(first, rows),
                          keys_t.middleRows(kv_head * head_dim, head_dim), s);
                w.leftCols(keys) = s.leftCols(keys);
                maskedSoftmax(w, trace.query_offset + first, trace.causal, trace.key_padding, 1.0f / trace.scale,
                              trace.sliding_window);
            } else {
                // weights = softmax(mask(Q_h K_g^T) / scale)
                blockProbabilities(trace, keys_t, head, first, rows, w);
            }
            // head output = weights V_g
            weightedValues(w.leftCols(keys), v_g.topRows(keys),
                           trace.concat.block(first, head * head_dim, rows, head_dim));
            if (streamed)
                copyStreaming(w, trace.probabilities[size_t(head)].middleRows(first, rows));
            if (!reduced)
                continue;
            if (head == trace.kept_head)
                trace.probabilities[size_t(head)].middleRows(first, rows) = w;
            // The block's rows into the head's cell blocks and its row maxima.
            CellBlocks& blocks = trace.cell_blocks[size_t(head)];
            if (masked)
                maskRows(trace, first, rows, padded, block_mask);
            for (int i = 0; i < rows; ++i)
                trace.row_max[size_t(head)](first + i) = key_len > 0 ? w.row(i).maxCoeff() : 0.0f;
            for (int line = 0; line < rows; line += block_factor) {
                const int block_row = (first + line) / block_factor;
                reducer.reduce(w.row(line).data(), w.outerStride(), masked ? block_mask.row(line).data() : nullptr,
                               block_mask.outerStride(), std::min(block_factor, rows - line), key_len,
                               block_factor, blocks.max.row(block_row).data(), blocks.mean.row(block_row).data(),
                               blocks.hidden.row(block_row).data());
            }
        }
    }
    if (reduced)
        for (CellBlocks& blocks : trace.cell_blocks)
            blocks.dropEmptyMask();
}

Matrix recomputeHeadProbabilities(const AttentionTrace& trace, int head)
{
    const int query_len = trace.queryLength();
    const int key_len = trace.keyLength();
    Matrix weights(query_len, key_len);  // (query_len, key_len)
    adviseHugePages(weights);
    Matrix keys_t;
    Matrix values;
    const int block_rows = trace.query_block > 0 ? trace.query_block : kQueryBlock;
    const int blocks = (query_len + block_rows - 1) / block_rows;
    const std::int64_t work = std::int64_t(query_len) * key_len * trace.head_dim;
    sizeKeysValues(trace, trace.kvHeadOf(head), keys_t, values);
#pragma omp parallel if (work >= kParallelWork)
    {
        materialiseKeysValues(trace, trace.kvHeadOf(head), keys_t, values);
        BlockBuffer scratch(block_rows, key_len);  // laid out as in the pass, then copied
#pragma omp for schedule(dynamic, 1)
        for (int block = 0; block < blocks; ++block) {
            const int first = block * block_rows;
            const int rows = std::min(block_rows, query_len - first);
            BlockRef w = scratch.rows(first, rows);
            blockProbabilities(trace, keys_t, head, first, rows, w);
            weights.middleRows(first, rows) = w;
        }
    }
    return weights;
}

}  // namespace attn
