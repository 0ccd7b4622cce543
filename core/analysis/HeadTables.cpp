#include "core/analysis/HeadTables.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/HeadMetricRows.h"
#include "core/attention/HeadRecomputer.h"
#include "core/pipeline/AttentionResult.h"

#include <algorithm>
#include <numbers>
#include <utility>

namespace attn {

namespace {

// `count` of the `blocks` blocks, evenly spaced, ascending: the middle block of each of `count`
// equal runs.
std::vector<bool> spacedBlocks(int blocks, int count)
{
    std::vector<bool> chosen(size_t(std::max(0, blocks)), count >= blocks);
    if (count < blocks)
        for (int k = 0; k < count; ++k)
            chosen[size_t((2 * std::int64_t(k) + 1) * blocks / (2 * std::int64_t(count)))] = true;
    return chosen;
}

HeadTables recomputedTables(const AttentionResult& result, std::int64_t divergence_cells,
                            const std::function<bool()>& cancelled)
{
    const AttentionTrace& trace = result.trace;
    const int num_heads = trace.num_heads;
    const int key_len = trace.keyLength();
    const bool hiding = std::find(result.hidden_keys.begin(), result.hidden_keys.end(), true) != result.hidden_keys.end();
    const HeadRecomputer recomputer(trace);
    const int blocks = recomputer.blockCount();

    std::vector<std::pair<int, int>> pairs;  // every unordered pair of heads once
    for (int x = 0; x < num_heads; ++x)
        for (int y = x + 1; y < num_heads; ++y)
            pairs.emplace_back(x, y);
    const std::int64_t cells_per_block = std::int64_t(pairs.size()) * recomputer.rowCount(0) * key_len;
    const int compared_blocks =
        cells_per_block > 0 ? int(std::clamp<std::int64_t>(divergence_cells / cells_per_block, 1, blocks)) : blocks;
    const std::vector<bool> compared = spacedBlocks(blocks, compared_blocks);

    HeadTables tables;
    tables.query_rows = trace.queryLength();
    std::vector<HeadMetricRows> metric_rows(static_cast<size_t>(num_heads));
    std::vector<DivergenceRows> divergence_rows(pairs.size());
    std::vector<BlockBuffer> buffers;  // one per head: a block of its weights, (rows, key_len)
    buffers.reserve(size_t(num_heads));
    for (int head = 0; head < num_heads; ++head)
        buffers.push_back(recomputer.buffer());
    std::vector<std::vector<DivergenceRowStat>> stats(static_cast<size_t>(num_heads));  // each (rows of the block)

    for (int block = 0; block < blocks; ++block) {
        if (cancelled && cancelled())
            return tables;
        const int first = recomputer.firstRow(block);
        const int rows = recomputer.rowCount(block);
        const bool compare = compared[size_t(block)];
#pragma omp parallel for schedule(dynamic, 1)
        for (int head = 0; head < num_heads; ++head) {
            BlockBuffer& buffer = buffers[size_t(head)];
            BlockRef w = head == trace.kept_head ? buffer.rows(first, rows) : recomputer.probabilities(head, block, buffer);
            if (head == trace.kept_head) {
                w = trace.probabilities[size_t(head)].middleRows(first, rows);  // as shown: hidden keys already hidden
            } else if (hiding) {
                for (int i = 0; i < rows; ++i)
                    AttentionDisplay::hideKeysInRow(w.row(i), result.hidden_keys);
            }
            for (int i = 0; i < rows; ++i)
                metric_rows[size_t(head)].add(first + i, w.row(i).data(), key_len);
            if (compare) {
                stats[size_t(head)].resize(size_t(rows));
                for (int i = 0; i < rows; ++i)
                    stats[size_t(head)][size_t(i)] = divergenceRowStat(w.row(i).data(), key_len);
            }
        }
        if (!compare)
            continue;
        tables.divergence_rows += rows;
#pragma omp parallel for schedule(dynamic)
        for (std::ptrdiff_t p = 0; p < std::ptrdiff_t(pairs.size()); ++p) {
            const auto [x, y] = pairs[size_t(p)];
            const BlockRef a = buffers[size_t(x)].rows(first, rows);
            const BlockRef b = buffers[size_t(y)].rows(first, rows);
            for (int i = 0; i < rows; ++i)
                divergence_rows[size_t(p)].add(a.row(i).data(), stats[size_t(x)][size_t(i)], b.row(i).data(),
                                               stats[size_t(y)][size_t(i)], key_len);
        }
    }
    for (const HeadMetricRows& rows : metric_rows)
        tables.metrics.push_back(rows.finish());
    tables.divergence = MatrixD::Zero(num_heads, num_heads);
    for (size_t p = 0; p < pairs.size(); ++p) {
        const auto [x, y] = pairs[p];
        tables.divergence(x, y) = tables.divergence(y, x) = divergence_rows[p].finish();
    }
    tables.complete = true;
    return tables;
}

}  // namespace

HeadTables HeadTables::compute(const AttentionResult& result, std::int64_t divergence_cells,
                               const std::function<bool()>& cancelled)
{
    const AttentionTrace& trace = result.trace;
    if (!trace.keepsEveryHead())
        return recomputedTables(result, divergence_cells, cancelled);
    HeadTables tables;
    tables.query_rows = tables.divergence_rows = trace.queryLength();
    // Metrics and divergences are defined on distributions: value-weighted attention is read
    // with each row normalised to sum 1.
    std::vector<Matrix> normalised;
    if (result.value_norms)
        for (const Matrix& head : trace.probabilities)
            normalised.push_back(AttentionDisplay::rowNormalised(head));
    const std::vector<Matrix>& heads = result.value_norms ? normalised : trace.probabilities;
    tables.metrics = computeHeadMetrics(heads);
    if (cancelled && cancelled())
        return tables;
    tables.divergence = similarityMatrix(heads);
    tables.complete = true;
    return tables;
}

}  // namespace attn
