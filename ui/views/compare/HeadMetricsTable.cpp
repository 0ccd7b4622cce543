#include "ui/views/compare/HeadMetricsTable.h"

#include <QApplication>
#include <QHeaderView>
#include <QSortFilterProxyModel>

namespace attn {

HeadMetricsTable::HeadMetricsTable(QWidget* parent) : QTableView(parent)
{
    m_model = new HeadMetricsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(HeadMetricsModel::kSortRole);
    setModel(m_proxy);
    setSortingEnabled(true);
    sortByColumn(HeadMetricsModel::HeadColumn, Qt::AscendingOrder);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    setToolTip(tr("Click a head to compare it (Shift+click: side B). Click a column to sort."));

    connect(this, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int head = headAtRow(index.row());
        if (head < 0)
            return;
        if (QApplication::keyboardModifiers() & Qt::ShiftModifier)
            emit headPickedB(head);
        else
            emit headPicked(head);
    });
}

int HeadMetricsTable::headAtRow(int view_row) const
{
    const QModelIndex index = m_proxy->index(view_row, 0);
    return index.isValid() ? index.data(HeadMetricsModel::kHeadRole).toInt() : -1;
}

void HeadMetricsTable::setMetrics(std::vector<HeadMetric> metrics)
{
    m_model->setMetrics(std::move(metrics));
}

void HeadMetricsTable::setComparedHeads(int head_a, int head_b)
{
    m_model->setComparedHeads(head_a, head_b);
}

}  // namespace attn
