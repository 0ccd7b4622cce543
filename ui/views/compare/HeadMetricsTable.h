#pragma once

#include "ui/views/compare/HeadMetricsItemModel.h"

#include <QTableView>

class QSortFilterProxyModel;

namespace attn {

// The sortable table of head metrics. Clicking a row picks its head; with Shift it picks side B.
class HeadMetricsTable : public QTableView {
    Q_OBJECT
public:
    explicit HeadMetricsTable(QWidget* parent = nullptr);

    HeadMetricsItemModel* metricsModel() const { return m_model; }
    QSortFilterProxyModel* proxyModel() const { return m_proxy; }
    int headAtRow(int view_row) const;  // the head shown in a row of the (sorted) view
    QSize sizeHint() const override;

public slots:
    void setMetrics(std::vector<attn::HeadMetric> metrics);
    void setComparedHeads(int head_a, int head_b);

signals:
    void headPicked(int head);   // a plain click
    void headPickedB(int head);  // Shift+click

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();

    HeadMetricsItemModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
};

}  // namespace attn
