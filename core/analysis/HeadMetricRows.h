#pragma once

#include "core/analysis/HeadMetrics.h"

#include <Eigen/Core>

namespace attn {

// A head's metrics (HeadMetric) accumulated one query row at a time, in order: `row` holds the
// first `length` weights of query i's row, the keys after them are 0 (a causal map stored as its
// triangle). The same rows in the same order give the same numbers bit for bit, however they are
// fetched (a whole matrix, compact maps, a long input's recomputed blocks).
class HeadMetricRows {
public:
    void add(Eigen::Index i, const float* row, Eigen::Index length);
    HeadMetric finish() const;

private:
    HeadMetric m_metric;
    Eigen::Index m_counted = 0;
    Eigen::Index m_counted_previous = 0;
};

// One row of a head, for its Jensen-Shannon divergence from other heads' same row.
struct DivergenceRowStat {
    double inv_sum = 0.0;  // 1 / the row's sum; 0 for a row with no distribution
    double entropy = 0.0;  // of the row normalised to sum 1
};
DivergenceRowStat divergenceRowStat(const float* row, Eigen::Index cols);

// The mean over query rows of JS(row of a, row of b), accumulated one row at a time, in order
// (jensenShannon's definition, HeadMetrics.h).
class DivergenceRows {
public:
    void add(const float* a, const DivergenceRowStat& sa, const float* b, const DivergenceRowStat& sb,
             Eigen::Index cols);
    double finish() const;

private:
    double m_total = 0.0;
    Eigen::Index m_counted = 0;
};

}  // namespace attn
