#pragma once

#include "core/analysis/WalkthroughData.h"

#include <QAbstractTableModel>

namespace attn {

// The indices of a table's widest row label and widest column label (WidestLabel), or -1: the
// one section each header measures.
struct WidestLabels {
    int row = -1;
    int column = -1;
};

// One WalkthroughTable as an item model: numbers at an adjustable precision, −∞ for masked
// entries, the selected query's row (and the selected head's columns) highlighted.
class WalkthroughItemModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int ValueRole = Qt::UserRole;  // the float itself, as a double
    // headerData of any section: the widest section of that orientation, when it is known.
    static constexpr int WidestSectionRole = Qt::UserRole + 1;

    explicit WalkthroughItemModel(QObject* parent = nullptr);

    // Same size as before: the cells change in place (views keep their scroll position).
    void setTable(WalkthroughTable table, WidestLabels widest = {});
    const WalkthroughTable& table() const { return m_table; }
    WidestLabels widestLabels() const { return m_widest; }

    void setPrecision(int digits);
    int precision() const { return m_precision; }

    static QString formatValue(float value, int precision);  // "1.9366", "−∞"

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    bool inHighlightedColumns(int column) const;

    WalkthroughTable m_table;
    WidestLabels m_widest;
    int m_precision = 4;
};

}  // namespace attn
