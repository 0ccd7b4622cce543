#include "ui/views/compare/HeadMetricsItemModel.h"

#include <QFont>

namespace attn {

HeadMetricsItemModel::HeadMetricsItemModel(QObject* parent) : QAbstractTableModel(parent)
{
}

void HeadMetricsItemModel::setMetrics(std::vector<HeadMetric> metrics)
{
    beginResetModel();
    m_metrics = std::move(metrics);
    endResetModel();
}

void HeadMetricsItemModel::setComparedHeads(int head_a, int head_b)
{
    if (head_a == m_head_a && head_b == m_head_b)
        return;
    m_head_a = head_a;
    m_head_b = head_b;
    if (!m_metrics.empty())
        emit dataChanged(index(0, HeadColumn), index(rowCount() - 1, HeadColumn), {Qt::DisplayRole, Qt::FontRole});
}

double HeadMetricsItemModel::value(const HeadMetric& metric, int column)
{
    switch (column) {
        case EntropyColumn:
            return metric.entropy;
        case MaxColumn:
            return metric.max;
        case DiagonalColumn:
            return metric.diagonal;
        case PreviousColumn:
            return metric.previous;
        case FirstColumn:
            return metric.first;
        default:
            return 0.0;
    }
}

int HeadMetricsItemModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_metrics.size());
}

int HeadMetricsItemModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HeadMetricsItemModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int head = index.row();
    const HeadMetric& metric = m_metrics[size_t(head)];
    const bool is_head = index.column() == HeadColumn;
    switch (role) {
        case Qt::DisplayRole:
            if (is_head) {
                QString text = QString::number(head);
                if (head == m_head_a)
                    text += tr("  (A)");
                if (head == m_head_b)
                    text += tr("  (B)");
                return text;
            }
            return QString::number(value(metric, index.column()), 'f', 3);
        case kSortRole:
            return is_head ? QVariant(head) : QVariant(value(metric, index.column()));
        case kHeadRole:
            return head;
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(
                Qt::Alignment(is_head ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter));
        case Qt::FontRole:
            if (is_head && (head == m_head_a || head == m_head_b)) {
                QFont font;
                font.setBold(true);
                return font;
            }
            return {};
        case Qt::ToolTipRole:
            return is_head ? QVariant() : QVariant(QString::number(value(metric, index.column()), 'g', 8));
        default:
            return {};
    }
}

QVariant HeadMetricsItemModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case HeadColumn:
                return tr("head");
            case EntropyColumn:
                return tr("entropy");
            case MaxColumn:
                return tr("max");
            case DiagonalColumn:
                return tr("diagonal");
            case PreviousColumn:
                return tr("previous");
            case FirstColumn:
                return tr("first");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case HeadColumn:
                return tr("The head; A and B are the heads being compared");
            case EntropyColumn:
                return tr(
                    "Mean over rows of -\u03a3 A\u1d62\u2c7c ln A\u1d62\u2c7c: 0 = each query looks at one key, ln T = "
                    "evenly at all");
            case MaxColumn:
                return tr("Mean over rows of the largest weight: how sharp the head is");
            case DiagonalColumn:
                return tr("Mean of A\u1d62\u1d62: how much each token attends to itself (1 = identity)");
            case PreviousColumn:
                return tr("Mean over rows i \u2265 1 of A\u1d62,\u1d62\u208b\u2081: attention to the previous token");
            case FirstColumn:
                return tr("Mean of A\u1d62\u2080: attention parked on the first token");
        }
    }
    return {};
}

}  // namespace attn
