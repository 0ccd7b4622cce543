#include "core/analysis/HeadMetricRows.h"

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

}  // namespace

void HeadMetricRows::add(Eigen::Index i, const float* row, Eigen::Index length)
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

HeadMetric HeadMetricRows::finish() const
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

DivergenceRowStat divergenceRowStat(const float* row, Eigen::Index cols)
{
    double sum = 0.0;
    for (Eigen::Index j = 0; j < cols; ++j)
        sum += std::max(0.0, double(row[j]));
    DivergenceRowStat stat;
    stat.inv_sum = sum > 0.0 ? 1.0 / sum : 0.0;
    stat.entropy = stat.inv_sum > 0.0 ? mixtureEntropy(row, stat.inv_sum, row, stat.inv_sum, cols) : 0.0;
    return stat;
}

// JS(P, Q) = H((P + Q) / 2) - (H(P) + H(Q)) / 2 for one row, from the rows' precomputed stats.
void DivergenceRows::add(const float* a, const DivergenceRowStat& sa, const float* b, const DivergenceRowStat& sb,
                         Eigen::Index cols)
{
    if (sa.inv_sum == 0.0 && sb.inv_sum == 0.0)
        return;  // a query that sees nothing in either head
    ++m_counted;
    if (sa.inv_sum == 0.0 || sb.inv_sum == 0.0) {
        m_total += std::numbers::ln2;  // a distribution against none: as far apart as can be
        return;
    }
    const double mixed = mixtureEntropy(a, sa.inv_sum, b, sb.inv_sum, cols);
    const double js = mixed - 0.5 * (sa.entropy + sb.entropy);
    m_total += std::clamp(js, 0.0, std::numbers::ln2);  // rounding can step a hair outside
}

double DivergenceRows::finish() const
{
    return m_counted > 0 ? m_total / double(m_counted) : 0.0;
}

}  // namespace attn
