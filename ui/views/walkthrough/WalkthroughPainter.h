#pragma once

#include "core/analysis/WalkthroughData.h"

#include <QFont>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <vector>

class QPainter;

namespace attn {

// The walkthrough as a figure (File › Export image and Copy image of its tab): a line saying
// which head and query, then every step's header (number, title, formula) and its tables, each
// with its shape. A table larger than kMaxRows x kMaxColumns shows its first and last rows and
// columns, the query's row and the head's first columns, with ⋮ and … where the rest is left
// out, as numpy prints a large array. The steps flow down as many columns as make the page
// largest in the target; nothing depends on the widget's size or scroll state. The layout is
// measured with the fonts' own metrics, not a device's, so PNG, SVG and PDF are laid out alike.
class WalkthroughPainter {
public:
    static constexpr int kMaxRows = 9;
    static constexpr int kMaxColumns = 8;

    // `summary`: the line on top ("Head 2, query token 4 “sat”"); `precision`: decimals.
    WalkthroughPainter(const WalkthroughData& walk, QString summary, int precision);

    // The page's size at scale 1 in the layout that suits a target of `size` best.
    QSizeF naturalSize(const QSizeF& size) const;
    void paint(QPainter& painter, const QRectF& target) const;

    // The rows or columns of `count` shown, in order, -1 where some are left out; `keep` (the
    // query's row, the head's first column) is shown when not -1.
    static std::vector<int> shownIndices(int count, int limit, int keep);

private:
    struct Table {
        const WalkthroughTable* table = nullptr;
        QString caption;  // the title with the shape: "X  (T × d_in) = (13 × 512)"
        std::vector<int> rows;
        std::vector<int> columns;
        double label_width = 0;
        std::vector<double> column_widths;  // of `columns`
        QSizeF size;                        // of the grid, caption included
    };
    struct Block {  // one step
        QString number;
        QString title;
        QString formula;
        QString note;  // why the step has no tables, or what a table shows
        std::vector<Table> tables;
        QSizeF size;
    };
    struct Layout {
        int columns = 1;
        double column_width = 0;
        std::vector<int> first_block;  // of each column
        QSizeF size;                   // the whole page at scale 1
    };

    Table measureTable(const WalkthroughTable& table, const QString& caption) const;
    Layout layoutFor(const QSizeF& size) const;
    Layout layoutIn(int columns) const;
    void paintTable(QPainter& painter, const Table& table, QPointF at) const;
    QString cellText(float value) const;

    const WalkthroughData& m_walk;
    QString m_summary;
    int m_precision;
    QFont m_summary_font;
    QFont m_title_font;
    QFont m_formula_font;
    QFont m_caption_font;
    QFont m_cell_font;
    QFont m_bold_cell_font;
    std::vector<Block> m_blocks;
};

}  // namespace attn
