#include "core/analysis/HeadMetrics.h"

#include "core/analysis/HeadMetricRows.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attn {

HeadMetric computeHeadMetrics(const Matrix& weights)
{
    HeadMetricRows rows;
    if (weights.cols() == 0)
        return rows.finish();
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
        rows.add(i, weights.data() + i * weights.cols(), weights.cols());
    return rows.finish();
}

HeadMetric computeHeadMetrics(const AttentionMaps& maps, int layer, int head)
{
    HeadMetricRows rows;
    for (int i = 0; i < maps.seqLen(); ++i)
        rows.add(i, maps.row(layer, head, i), maps.rowLength(i));
    return rows.finish();
}

std::vector<HeadMetric> computeHeadMetrics(const std::vector<Matrix>& heads)
{
    std::vector<HeadMetric> metrics;
    metrics.reserve(heads.size());
    for (const Matrix& head : heads)
        metrics.push_back(computeHeadMetrics(head));
    return metrics;
}

namespace {

// Every row of one head: (query_len).
std::vector<DivergenceRowStat> rowStats(const Matrix& weights)
{
    std::vector<DivergenceRowStat> stats(size_t(weights.rows()));
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
        stats[size_t(i)] = divergenceRowStat(weights.data() + i * weights.cols(), weights.cols());
    return stats;
}

double jensenShannon(const Matrix& a, const std::vector<DivergenceRowStat>& sa, const Matrix& b,
                     const std::vector<DivergenceRowStat>& sb)
{
    DivergenceRows rows;
    const Eigen::Index cols = a.cols();
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        rows.add(a.data() + i * cols, sa[size_t(i)], b.data() + i * cols, sb[size_t(i)], cols);
    return rows.finish();
}

}  // namespace

double jensenShannon(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numbers::ln2;
    return jensenShannon(a, rowStats(a), b, rowStats(b));
}

MatrixD similarityMatrix(const std::vector<Matrix>& heads)
{
    const int num_heads = int(heads.size());
    MatrixD divergence = MatrixD::Zero(num_heads, num_heads);  // (num_heads, num_heads)
    std::vector<std::vector<DivergenceRowStat>> stats(static_cast<size_t>(num_heads));
    for (int h = 0; h < num_heads; ++h)
        stats[size_t(h)] = rowStats(heads[size_t(h)]);

    // Every unordered pair once; each pair is independent, so the result does not depend on threads.
    std::vector<std::pair<int, int>> pairs;
    for (int x = 0; x < num_heads; ++x)
        for (int y = x + 1; y < num_heads; ++y)
            pairs.emplace_back(x, y);
#pragma omp parallel for schedule(dynamic)
    for (std::ptrdiff_t p = 0; p < std::ptrdiff_t(pairs.size()); ++p) {
        const auto [x, y] = pairs[size_t(p)];
        const Matrix& a = heads[size_t(x)];
        const Matrix& b = heads[size_t(y)];
        const double js = a.rows() == b.rows() && a.cols() == b.cols()
                              ? jensenShannon(a, stats[size_t(x)], b, stats[size_t(y)])
                              : std::numbers::ln2;
        divergence(x, y) = js;
        divergence(y, x) = js;
    }
    return divergence;
}

std::vector<int> similarityOrder(const MatrixD& divergence)
{
    const int n = int(divergence.rows());
    std::vector<std::vector<int>> clusters;  // each an ordered run of heads
    for (int h = 0; h < n; ++h)
        clusters.push_back({h});

    auto linkage = [&](const std::vector<int>& x, const std::vector<int>& y) {
        double sum = 0.0;
        for (int a : x)
            for (int b : y)
                sum += divergence(a, b);
        return sum / double(x.size() * y.size());
    };

    while (clusters.size() > 1) {
        // The closest pair of clusters (average linkage); strict < keeps the first, lowest pair on ties.
        size_t best_x = 0, best_y = 1;
        double best = linkage(clusters[0], clusters[1]);
        for (size_t x = 0; x < clusters.size(); ++x)
            for (size_t y = x + 1; y < clusters.size(); ++y)
                if (const double d = linkage(clusters[x], clusters[y]); d < best) {
                    best = d;
                    best_x = x;
                    best_y = y;
                }

        // Join them in the orientation whose meeting heads are closest.
        std::vector<int> left = clusters[best_x];
        std::vector<int> right = clusters[best_y];
        std::vector<int> left_reversed(left.rbegin(), left.rend());
        std::vector<int> right_reversed(right.rbegin(), right.rend());
        const std::vector<int>* pick_left = &left;
        const std::vector<int>* pick_right = &right;
        double meeting = divergence(left.back(), right.front());
        for (const auto* l : {&left, &left_reversed})
            for (const auto* r : {&right, &right_reversed})
                if (const double d = divergence(l->back(), r->front()); d < meeting) {
                    meeting = d;
                    pick_left = l;
                    pick_right = r;
                }
        std::vector<int> joined = *pick_left;
        joined.insert(joined.end(), pick_right->begin(), pick_right->end());
        clusters.erase(clusters.begin() + std::ptrdiff_t(best_y));  // best_y > best_x: erase it first
        clusters[best_x] = std::move(joined);
    }
    return n > 0 ? clusters.front() : std::vector<int>{};
}

}  // namespace attn
