#include "ui/views/lines/LineChoice.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace attn {

std::vector<LineChoice::Line> LineChoice::choose(const AttentionResult& result, const std::vector<int>& heads,
                                                 int keys_per_query, int max_lines, double top_mass)
{
    std::vector<Line> lines;
    float strongest = 0.0f;
    const AttentionTrace& trace = result.trace;
    const bool by_rows = !trace.keepsEveryHead() && int(trace.row_max.size()) == trace.num_heads;
    for (int h : heads)  // a long input's: the row maxima the engine noted (else each head recomputed)
        strongest = std::max(strongest, by_rows ? trace.row_max[size_t(h)].maxCoeff()
                                                : AttentionDisplay::headProbabilities(result, h)->maxCoeff());
    if (!(strongest > 0.0f))
        return lines;
    const float threshold = kMinRelativeWeight * strongest;
    constexpr int kMostKeys = 8;  // keys_per_query is at most this (the per-row candidates)
    const int keep = std::clamp(keys_per_query, 0, kMostKeys);
    for (int h : heads) {
        const std::shared_ptr<const Matrix> head_weights = AttentionDisplay::headProbabilities(result, h);
        const Matrix& weights = *head_weights;  // (query_len, key_len)
        const MaskMatrix kept = top_mass < 1.0 ? AttentionDisplay::topMass(weights, top_mass) : MaskMatrix();
        const auto shown = [&kept](int i, int j) { return kept.size() == 0 || kept(i, j); };
        for (int i = 0; i < weights.rows(); ++i) {
            const float* row = weights.row(i).data();
            if (keep == 0) {
                for (int j = 0; j < weights.cols(); ++j)
                    if (row[j] >= threshold && shown(i, j))
                        lines.push_back({row[j], h, i, j});
                continue;
            }
            // The row's strongest `keep` keys, strongest first (insertion into a short list). A
            // long input's later rows are all weaker than its first ones (a causal row spreads
            // over more keys): each row is measured against its own strongest key, not the
            // input's, or only the first rows would have lines.
            std::array<Line, kMostKeys> best{};
            int count = 0;
            for (int j = 0; j < weights.cols(); ++j) {
                const float w = row[j];
                if (!(w > 0.0f) || (count == keep && w <= best[size_t(keep - 1)].weight) || !shown(i, j))
                    continue;
                int at = std::min(count, keep - 1);
                while (at > 0 && best[size_t(at - 1)].weight < w) {
                    best[size_t(at)] = best[size_t(at - 1)];
                    --at;
                }
                best[size_t(at)] = {w, h, i, j};
                count = std::min(count + 1, keep);
            }
            for (int n = 0; n < count; ++n) {
                Line line = best[size_t(n)];
                line.shade = line.weight / best[0].weight;
                if (line.shade >= kMinRelativeWeight)
                    lines.push_back(line);
            }
        }
    }
    if (keep == 0)
        for (Line& line : lines)
            line.shade = line.weight / strongest;
    if (max_lines > 0 && lines.size() > size_t(max_lines))
        lines = spreadOverQueries(std::move(lines), result.seqLen(), max_lines);
    const auto weaker = [](const Line& a, const Line& b) {
        return a.shade != b.shade ? a.shade < b.shade : a.weight < b.weight;
    };
    std::stable_sort(lines.begin(), lines.end(), weaker);  // weakest first: strong lines on top
    return lines;
}

int LineChoice::queriesPerBlock(int queries, int max_lines)
{
    const int blocks = std::clamp(max_lines / kLinesPerBlock, 1, std::max(1, queries));
    return (queries + blocks - 1) / blocks;
}

// The lines of each block of queriesPerBlock consecutive queries, an equal share of max_lines
// each, the strongest of the block (the weight itself, strongest first): the strongest of the
// whole input all start in its first rows.
std::vector<LineChoice::Line> LineChoice::spreadOverQueries(std::vector<Line> lines, int queries, int max_lines)
{
    const int per_block = queriesPerBlock(queries, max_lines);
    const int blocks = (queries + per_block - 1) / per_block;
    std::sort(lines.begin(), lines.end(), [per_block](const Line& a, const Line& b) {
        const int block_a = a.query / per_block;
        const int block_b = b.query / per_block;
        return block_a != block_b ? block_a < block_b : a.weight > b.weight;
    });
    std::vector<Line> kept;
    kept.reserve(size_t(max_lines));
    size_t at = 0;
    for (int block = 0; block < blocks && at < lines.size(); ++block) {
        const auto share =
            size_t(std::int64_t(max_lines) * (block + 1) / blocks - std::int64_t(max_lines) * block / blocks);
        size_t end = at;
        while (end < lines.size() && lines[end].query / per_block == block)
            ++end;
        kept.insert(kept.end(), lines.begin() + std::ptrdiff_t(at),
                    lines.begin() + std::ptrdiff_t(at + std::min(share, end - at)));
        at = end;
    }
    return kept;
}

}  // namespace attn
