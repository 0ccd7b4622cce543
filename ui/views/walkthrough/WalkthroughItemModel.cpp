#include "ui/views/walkthrough/WalkthroughItemModel.h"

#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

const QColor kRowHighlight(0xff, 0xe8, 0xb0);
const QColor kColumnHighlight(0xe1, 0xec, 0xf8);
const QColor kBothHighlight(0xff, 0xd2, 0x8a);

}  // namespace

WalkthroughItemModel::WalkthroughItemModel(QObject* parent) : QAbstractTableModel(parent)
{
}

void WalkthroughItemModel::setTable(WalkthroughTable table, WidestLabels widest)
{
    const bool same_size = table.values.rows() == m_table.values.rows() &&
                           table.values.cols() == m_table.values.cols() &&
                           table.row_labels.size() == m_table.row_labels.size() &&
                           table.column_labels.size() == m_table.column_labels.size();
    if (!same_size) {
        beginResetModel();
        m_table = std::move(table);
        m_widest = widest;
        endResetModel();
        return;
    }
    m_table = std::move(table);
    m_widest = widest;
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    if (rowCount() > 0)
        emit headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
    if (columnCount() > 0)
        emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

void WalkthroughItemModel::setPrecision(int digits)
{
    digits = std::clamp(digits, 0, 9);
    if (digits == m_precision)
        return;
    m_precision = digits;
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::DisplayRole});
}

QString WalkthroughItemModel::formatValue(float value, int precision)
{
    if (std::isnan(value))
        return QStringLiteral("NaN");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("−∞") : QStringLiteral("∞");
    return QString::number(double(value), 'f', precision);
}

int WalkthroughItemModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.values.rows());
}

int WalkthroughItemModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.values.cols());
}

bool WalkthroughItemModel::inHighlightedColumns(int column) const
{
    return m_table.highlighted_first_column >= 0 && column >= m_table.highlighted_first_column &&
           column < m_table.highlighted_first_column + m_table.highlighted_column_count;
}

QVariant WalkthroughItemModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const float value = m_table.values(index.row(), index.column());
    const bool row = index.row() == m_table.highlighted_row;
    const bool column = inHighlightedColumns(index.column());
    switch (role) {
        case Qt::DisplayRole:
            return formatValue(value, m_precision);
        case ValueRole:
            return double(value);
        case Qt::ToolTipRole:
            return QStringLiteral("%1, %2: %3")
                .arg(m_table.row_labels.value(index.row()), m_table.column_labels.value(index.column()),
                     std::isfinite(value) ? QString::number(double(value), 'g', 9) : formatValue(value, 0));
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        case Qt::BackgroundRole:
            if (row && column)
                return kBothHighlight;
            if (row)
                return kRowHighlight;
            if (column)
                return kColumnHighlight;
            return {};
        case Qt::ForegroundRole:
            if (std::isinf(value))
                return QColor(0x80, 0x80, 0x80);
            if (row || column)
                return QColor(Qt::black);  // readable on the light highlight with a dark theme too
            return {};
        case Qt::FontRole:
            if (row) {
                QFont font;
                font.setBold(true);
                return font;
            }
            return {};
        default:
            return {};
    }
}

QVariant WalkthroughItemModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    const QStringList& labels = orientation == Qt::Horizontal ? m_table.column_labels : m_table.row_labels;
    if (section < 0 || section >= labels.size())
        return {};
    if (role == WidestSectionRole) {
        const int widest = orientation == Qt::Horizontal ? m_widest.column : m_widest.row;
        return widest >= 0 && widest < labels.size() ? QVariant(widest) : QVariant();
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
        return labels[section];
    if (role == Qt::FontRole && orientation == Qt::Vertical && section == m_table.highlighted_row) {
        QFont font;
        font.setBold(true);
        return font;
    }
    return {};
}

Qt::ItemFlags WalkthroughItemModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

}  // namespace attn
