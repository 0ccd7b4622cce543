#include "core/analysis/AttentionThumbnail.h"

#include "core/analysis/AttentionDisplay.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace attn {
namespace {

constexpr float kMasked = std::numeric_limits<float>::quiet_NaN();

// The first index of each of `bins` equal parts of 0..count, and count at the end.
std::vector<int> binEdges(int count, int bins)
{
    std::vector<int> edges(size_t(bins) + 1);  // (bins + 1)
    for (int b = 0; b <= bins; ++b)
        edges[size_t(b)] = int(std::int64_t(b) * count / bins);
    return edges;
}

// Where the rows of the reduced map come from: one head's rows in place, or with keys hidden
// (their weights 0, each row renormalised over the keys that remain, as AttentionDisplay::hideKeys),
// or the rows of several heads (of any layers) fused cell by cell, each after hiding.
class RowSource {
public:
    RowSource(const AttentionMaps& maps, std::vector<std::pair<int, int>> members, HeadFusion fusion,
              const std::vector<int>& hidden_keys)
        : m_maps(maps), m_members(std::move(members)), m_fusion(fusion)
    {
        if (!hidden_keys.empty()) {
            m_hidden.assign(size_t(maps.seqLen()), false);
            for (int key : hidden_keys)
                if (key >= 0 && key < maps.seqLen())
                    m_hidden[size_t(key)] = true;
            m_shown.resize(size_t(maps.seqLen()));
        }
        if (m_members.size() > 1)
            m_fused.resize(size_t(maps.seqLen()));
    }

    // Row `query`: its first maps.rowLength(query) weights.
    const float* row(int query)
    {
        if (m_members.size() == 1)
            return memberRow(0, query);
        const int length = m_maps.rowLength(query);
        Eigen::Map<Eigen::ArrayXf> fused(m_fused.data(), length);  // (length)
        fused = Eigen::Map<const Eigen::ArrayXf>(memberRow(0, query), length);
        for (size_t m = 1; m < m_members.size(); ++m) {
            const Eigen::Map<const Eigen::ArrayXf> next(memberRow(m, query), length);  // (length)
            switch (m_fusion) {
                case HeadFusion::Mean: fused += next; break;
                case HeadFusion::Max: fused = fused.max(next); break;
                case HeadFusion::Min: fused = fused.min(next); break;
            }
        }
        if (m_fusion == HeadFusion::Mean)
            fused /= float(m_members.size());
        return m_fused.data();
    }

private:
    const float* memberRow(size_t member, int query)
    {
        const float* weights = m_maps.row(m_members[member].first, m_members[member].second, query);
        if (m_hidden.empty())
            return weights;
        const int length = m_maps.rowLength(query);
        Eigen::Map<Eigen::ArrayXf> shown(m_shown.data(), length);  // (length)
        shown = Eigen::Map<const Eigen::ArrayXf>(weights, length);
        AttentionDisplay::hideKeysInRow(shown, m_hidden);
        return m_shown.data();
    }

    const AttentionMaps& m_maps;
    std::vector<std::pair<int, int>> m_members;  // (layer, head) pairs
    HeadFusion m_fusion;
    std::vector<bool> m_hidden;        // (T) the keys hidden; empty: none
    std::vector<float> m_shown;        // (T) a member's row after hiding
    std::vector<float> m_fused;        // (T)
};

// One row of pixels: queries [first, last) reduced over each key bin into `out` (cols).
// A query sees the keys firstKey .. rowLength - 1; the cells outside them are masked, not weights.
void reduceQueries(const AttentionMaps& maps, RowSource& source, int first, int last, const std::vector<int>& keys,
                   ThumbnailReduction reduction, float* out)
{
    const int cols = int(keys.size()) - 1;
    std::vector<double> sum(static_cast<size_t>(cols), 0.0);  // (cols)
    std::vector<int> count(size_t(cols), 0);                  // (cols)
    std::vector<float> top(size_t(cols), -1.0f);              // (cols); weights are >= 0
    for (int query = first; query < last; ++query) {
        const float* row = source.row(query);
        const int length = maps.rowLength(query);
        const int first_key = maps.firstKey(query);  // past a sliding window: masked
        for (int c = 0; c < cols; ++c) {
            if (keys[size_t(c)] >= length)
                break;  // this bin and every later one lie past the keys the query sees
            const int begin = std::max(keys[size_t(c)], first_key);
            const int end = std::min(keys[size_t(c) + 1], length);
            if (begin >= end)
                continue;                                                            // the bin lies before the window
            const Eigen::Map<const Eigen::ArrayXf> cells(row + begin, end - begin);  // vectorised by Eigen
            if (reduction == ThumbnailReduction::Max)
                top[size_t(c)] = std::max(top[size_t(c)], cells.maxCoeff());
            else
                sum[size_t(c)] += double(cells.sum());
            count[size_t(c)] += end - begin;
        }
    }
    for (int c = 0; c < cols; ++c) {
        if (count[size_t(c)] == 0)
            out[c] = kMasked;
        else
            out[c] = reduction == ThumbnailReduction::Max ? top[size_t(c)] : float(sum[size_t(c)] / count[size_t(c)]);
    }
}

double largest(const float* values, int count)
{
    double high = -1.0;
    for (int i = 0; i < count; ++i)
        if (values[i] == values[i])  // not NaN
            high = std::max(high, double(values[i]));
    return high;
}

}  // namespace

AttentionThumbnail AttentionThumbnail::reduce(const AttentionMaps& maps, int layer, int head, int rows, int cols,
                                              ThumbnailReduction reduction, const std::vector<int>& hidden_keys)
{
    return reduceFused(maps, {{layer, head}}, HeadFusion::Mean, rows, cols, reduction, hidden_keys);
}

AttentionThumbnail AttentionThumbnail::reduceFused(const AttentionMaps& maps,
                                                   const std::vector<std::pair<int, int>>& members, HeadFusion fusion,
                                                   int rows, int cols, ThumbnailReduction reduction,
                                                   const std::vector<int>& hidden_keys)
{
    const int seq_len = maps.seqLen();
    rows = std::clamp(rows, 1, std::max(1, seq_len));
    cols = std::clamp(cols, 1, std::max(1, seq_len));
    AttentionThumbnail thumbnail;
    thumbnail.values = Matrix::Constant(rows, cols, kMasked);  // (rows, cols)
    if (seq_len == 0 || members.empty())
        return thumbnail;
    RowSource source(maps, members, fusion, hidden_keys);
    const std::vector<int> queries = binEdges(seq_len, rows);  // (rows + 1)
    const std::vector<int> keys = binEdges(seq_len, cols);     // (cols + 1)
    for (int r = 0; r < rows; ++r) {
        float* out = thumbnail.values.row(r).data();
        reduceQueries(maps, source, queries[size_t(r)], queries[size_t(r) + 1], keys, reduction, out);
        thumbnail.top = std::max(thumbnail.top, largest(out, cols));
    }
    // The scale leaves out the queries that see a single key: only query 0 can (causal, or T = 1),
    // and only pixel row 0 holds it. That row again without it, for the scale only.
    thumbnail.top_without_one_key_rows = -1.0;
    for (int r = 0; r < rows; ++r) {
        int first = queries[size_t(r)];
        if (maps.rowLength(first) == 1)
            ++first;
        if (first >= queries[size_t(r) + 1])
            continue;
        if (first == queries[size_t(r)]) {
            thumbnail.top_without_one_key_rows =
                std::max(thumbnail.top_without_one_key_rows, largest(thumbnail.values.row(r).data(), cols));
            continue;
        }
        std::vector<float> without(static_cast<size_t>(cols));  // (cols)
        reduceQueries(maps, source, first, queries[size_t(r) + 1], keys, reduction, without.data());
        thumbnail.top_without_one_key_rows =
            std::max(thumbnail.top_without_one_key_rows, largest(without.data(), cols));
    }
    return thumbnail;
}

std::vector<AttentionThumbnail> AttentionThumbnail::reduceAll(const AttentionMaps& maps, int rows, int cols,
                                                              ThumbnailReduction reduction,
                                                              const std::vector<int>& hidden_keys)
{
    const int count = maps.numLayers() * maps.numHeads();
    std::vector<AttentionThumbnail> thumbnails(size_t(std::max(0, count)));
    const std::int64_t work = std::int64_t(count) * maps.seqLen() * maps.seqLen();
#pragma omp parallel for if (work >= (std::int64_t(1) << 20)) schedule(dynamic)
    for (int i = 0; i < count; ++i)
        thumbnails[size_t(i)] = reduce(maps, i / maps.numHeads(), i % maps.numHeads(), rows, cols, reduction,
                                       hidden_keys);
    return thumbnails;
}

}  // namespace attn
