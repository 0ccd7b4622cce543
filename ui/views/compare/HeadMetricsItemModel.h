#pragma once

#include "core/analysis/HeadMetrics.h"

#include <QAbstractTableModel>

#include <vector>

namespace attn {

// One row per head: its number and the five HeadMetric columns. Display text has 3 decimals;
// kSortRole holds the exact number so a QSortFilterProxyModel sorts numerically.
class HeadMetricsItemModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { HeadColumn, EntropyColumn, MaxColumn, DiagonalColumn, PreviousColumn, FirstColumn, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;
    static constexpr int kHeadRole = Qt::UserRole + 2;  // the head number of a row, in every column

    explicit HeadMetricsItemModel(QObject* parent = nullptr);

    void setMetrics(std::vector<HeadMetric> metrics);
    // Heads marked "A" and "B" in the head column (-1: none).
    void setComparedHeads(int head_a, int head_b);
    const std::vector<HeadMetric>& metrics() const { return m_metrics; }
    static double value(const HeadMetric& metric, int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<HeadMetric> m_metrics;
    int m_head_a = -1;
    int m_head_b = -1;
};

}  // namespace attn
