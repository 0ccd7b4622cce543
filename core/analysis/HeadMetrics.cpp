#include "core/analysis/HeadMetrics.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attn {
namespace {

// -sum_j m_j ln m_j with m_j = (a_j / sum_a + b_j / sum_b) / 2. With b == a this is exactly the
// entropy of a's normalised row (x + x and the halving are exact), so JS(p, p) is exactly 0.
double mixtureEntropy(const float* a, double inv_sum_a, const float* b, double inv_sum_b, Eigen::Index n)
{
    double entropy = 0.0;
    for (Eigen::Index j = 0; j < n; ++j) {
        const double m = 0.5 * (double(a[j]) * inv_sum_a + double(b[j]) * inv_sum_b);
        if (m > 0.0)
            entropy -= m * std::log(m);
    }
    return entropy;
}

// Per row of one head: 1 / row sum (0 for a row with no distribution) and the row's entropy.
struct RowStats {
    std::vector<double> inv_sum;  // (query_len)
    std::vector<double> entropy;  // (query_len)
};

RowStats rowStats(const Matrix& weights)
{
    RowStats stats;
    const Eigen::Index rows = weights.rows();
    const Eigen::Index cols = weights.cols();
    stats.inv_sum.resize(size_t(rows));
    stats.entropy.resize(size_t(rows));
    for (Eigen::Index i = 0; i < rows; ++i) {
        double sum = 0.0;
        for (Eigen::Index j = 0; j < cols; ++j)
            sum += std::max(0.0, double(weights(i, j)));
        const double inv = sum > 0.0 ? 1.0 / sum : 0.0;
        const float* row = weights.data() + i * cols;
        stats.inv_sum[size_t(i)] = inv;
        stats.entropy[size_t(i)] = inv > 0.0 ? mixtureEntropy(row, inv, row, inv, cols) : 0.0;
    }
    return stats;
}

// JS(P, Q) = H((P + Q) / 2) - (H(P) + H(Q)) / 2, mean over rows, with precomputed row stats.
double jensenShannon(const Matrix& a, const RowStats& sa, const Matrix& b, const RowStats& sb)
{
    const Eigen::Index rows = a.rows();
    const Eigen::Index cols = a.cols();
    double total = 0.0;
    Eigen::Index counted = 0;
    for (Eigen::Index i = 0; i < rows; ++i) {
        const double ia = sa.inv_sum[size_t(i)];
        const double ib = sb.inv_sum[size_t(i)];
        if (ia == 0.0 && ib == 0.0)
            continue;  // a query that sees nothing in either head
        ++counted;
        if (ia == 0.0 || ib == 0.0) {
            total += std::numbers::ln2;  // a distribution against none: as far apart as can be
            continue;
        }
        const double mixed = mixtureEntropy(a.data() + i * cols, ia, b.data() + i * cols, ib, cols);
        const double js = mixed - 0.5 * (sa.entropy[size_t(i)] + sb.entropy[size_t(i)]);
        total += std::clamp(js, 0.0, std::numbers::ln2);  // rounding can step a hair outside
    }
    return counted > 0 ? total / double(counted) : 0.0;
}

}  // namespace

namespace {

// The metrics accumulated one query row at a time: `row` holds the first `length` weights of
// the row, the keys after them (up to `cols`) are 0, as in a causal map stored as its triangle.
class HeadMetricRows {
public:
    void add(Eigen::Index i, const float* row, Eigen::Index length)
    {
        if (std::none_of(row, row + length, [](float a) { return a > 0.0f; }))
            return;  // a query that sees no key holds no distribution
        ++m_counted;
        double entropy = 0.0;
        for (Eigen::Index j = 0; j < length; ++j) {
            const double a = row[j];
            if (a > 0.0)
                entropy -= a * std::log(a);
        }
        m_metric.entropy += entropy;
        m_metric.max += double(*std::max_element(row, row + length));
        m_metric.diagonal += i < length ? double(row[i]) : 0.0;
        m_metric.first += double(row[0]);
        if (i >= 1) {
            ++m_counted_previous;
            m_metric.previous += i - 1 < length ? double(row[i - 1]) : 0.0;
        }
    }

    HeadMetric finish() const
    {
        HeadMetric metric = m_metric;
        if (m_counted > 0) {
            metric.entropy /= double(m_counted);
            metric.max /= double(m_counted);
            metric.diagonal /= double(m_counted);
            metric.first /= double(m_counted);
        }
        if (m_counted_previous > 0)
            metric.previous /= double(m_counted_previous);
        return metric;
    }

private:
    HeadMetric m_metric;
    Eigen::Index m_counted = 0;
    Eigen::Index m_counted_previous = 0;
};

}  // namespace

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
    std::vector<RowStats> stats(static_cast<size_t>(num_heads));
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
