#include "ui/views/compare/HeadMetricsTable.h"

#include <QApplication>
#include <QHeaderView>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSortFilterProxyModel>

namespace attn {

HeadMetricsTable::HeadMetricsTable(QWidget* parent) : QTableView(parent)
{
    m_model = new HeadMetricsItemModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(HeadMetricsItemModel::kSortRole);
    setModel(m_proxy);
    setSortingEnabled(true);
    sortByColumn(HeadMetricsItemModel::HeadColumn, Qt::AscendingOrder);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);  // widths from fitColumns
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

// Each column at least as wide as its header and contents, the spare width shared out; a table
// narrower than that scrolls sideways instead of cutting the headers.
void HeadMetricsTable::resizeEvent(QResizeEvent* event)
{
    QTableView::resizeEvent(event);
    fitColumns();
}

QSize HeadMetricsTable::sizeHint() const
{
    // As wide as the headers need, no wider: a splitter then shares the rest with its neighbours.
    int width = 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
    for (int column = 0; column < horizontalHeader()->count(); ++column)
        width += horizontalHeader()->sectionSizeHint(column);
    return {width, QTableView::sizeHint().height()};
}

void HeadMetricsTable::fitColumns()
{
    QHeaderView* header = horizontalHeader();
    const int count = header->count();
    if (count == 0)
        return;
    QList<int> widths;  // of each column's header and contents
    int needed = 0;
    for (int column = 0; column < count; ++column) {
        widths.append(std::max(header->sectionSizeHint(column), sizeHintForColumn(column)));
        needed += widths.back();
    }
    // Counted as if the vertical scroll bar were shown: it may appear after the rows do.
    const int room =
        viewport()->width() - (verticalScrollBar()->isVisible() ? 0 : verticalScrollBar()->sizeHint().width());
    const int extra = std::max(0, room - needed) / count;
    for (int column = 0; column < count; ++column)
        header->resizeSection(column, widths[column] + extra);
}

int HeadMetricsTable::headAtRow(int view_row) const
{
    const QModelIndex index = m_proxy->index(view_row, 0);
    return index.isValid() ? index.data(HeadMetricsItemModel::kHeadRole).toInt() : -1;
}

void HeadMetricsTable::setMetrics(std::vector<HeadMetric> metrics)
{
    m_model->setMetrics(std::move(metrics));
    fitColumns();
}

void HeadMetricsTable::setComparedHeads(int head_a, int head_b)
{
    m_model->setComparedHeads(head_a, head_b);
}

}  // namespace attn
