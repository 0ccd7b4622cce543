#pragma once

#include "ui/heatmap/HeatmapReduction.h"

#include <QFont>
#include <QHash>
#include <QList>
#include <QMargins>
#include <QSharedPointer>
#include <QSize>
#include <QString>
#include <QStringList>

#include <utility>

class QCPAxis;
class QCPAxisRect;
class QCPAxisTickerText;
class QCPColorScale;
class QCPTextElement;
class QCustomPlot;

namespace attn {

// The drawn cells the labels are placed on: rows x columns drawn, each `blocks` cells of the
// matrix, covering `window` of it.
struct DrawnGrid {
    int rows = 0;
    int columns = 0;
    CellWindow window;
    BlockShape blocks;
    bool same_tokens = false;  // rows and columns are the same tokens (a square matrix): one label step
};

// The label step for at least `least` tokens between labels: 1, 2, 5, 10, 20, 25, 50, 100, 200,
// 250, 500, ... (every token when one fits).
int niceTickStep(double least);

// A heatmap's texts and the layout that fits them:
// - the title across the plot and the colour bar's label along its bar, never clipped: the first
//   of their length variants (separated by U+009C) that fits is shown, else it is elided;
// - the token labels on the two axes: the labels of the matrix's rows and columns, every n-th of
//   them so that they never overlap (x labels turned when a cell is narrower than the longest),
//   only on the drawn cells visible, at multiples of the step from the matrix's first block so
//   that they stay put as the view pans;
// - square cells: the layout padded so that every cell is square.
class HeatmapLabels {
public:
    // Sets its tickers on the axis rectangle's bottom and left axes.
    HeatmapLabels(QCustomPlot* plot, QCPAxisRect* rect, QCPTextElement* title, QCPColorScale* scale);

    void setTitle(const QString& title, const QSize& size);  // fitted to a plot of `size`
    void setBarLabel(const QString& label, const QSize& size);
    void fitTexts(const QSize& size);
    // Small fonts and margins (a grid of thumbnails), from the widget's `font`.
    void setCompact(bool compact, const QFont& font);
    // The labels, their density and the cells' estimated size for a plot of `size`; true when a
    // cell is large enough to hold a number legibly.
    bool layOut(const QSize& size, const DrawnGrid& grid, bool square, bool thumbnail);
    // After QCustomPlot has laid the plot out: pads it so that cells are square (`square`) and
    // thins the labels if the layout gave smaller cells than estimated; then lays it out again.
    void fitLayout(const QSize& size, const DrawnGrid& grid, bool square, bool thumbnail);
    // Cells of the drawn grid visible along each axis (fractional; all of them unless zoomed).
    double visibleDrawnColumns() const;
    double visibleDrawnRows() const;

    // The matrix's labels (empty: indices). Measured again when they or the drawn cells changed.
    void setLabels(const QStringList& row_labels, const QStringList& column_labels, bool reshaped);
    void fontChanged();  // the tick font: every width measured again
    QString rowLabel(int row) const;
    QString columnLabel(int column) const;

    // The widest column label of the drawn cells in the tick font (measured once per set of labels).
    int longestLabel(const DrawnGrid& grid);
    // Whether the steps estimated for `size` stay (the same size as the last call).
    bool keepsStepsAt(const QSize& size);
    // Every n-th label for cells this large; steps only grow with `at_least_current`, so that
    // the label widths they bring never shrink the cells below what they were computed for.
    // `thumbnail`: at most kMaxCachedTicks labels per axis. True when the labels changed.
    bool setTickSteps(double cell_width, double cell_height, bool at_least_current, const DrawnGrid& grid,
                      bool thumbnail);

    // The labels on the axes now, as (matrix row or column, text), within the axes' ranges.
    QList<std::pair<int, QString>> shownRowLabels(const DrawnGrid& grid) const;
    QList<std::pair<int, QString>> shownColumnLabels(const DrawnGrid& grid) const;

private:
    QCustomPlot* m_plot;
    QCPAxisRect* m_rect;
    QCPTextElement* m_title_element;
    QCPColorScale* m_scale;
    QString m_title;
    QString m_bar_label;
    bool m_compact = false;
    QMargins m_base_margins{6, 6, 6, 6};
    QMargins m_square_margins;  // added around the layout so that cells come out square
    bool m_squaring = false;
    QCPAxis* m_x;
    QCPAxis* m_y;
    QSharedPointer<QCPAxisTickerText> m_x_ticker;
    QSharedPointer<QCPAxisTickerText> m_y_ticker;
    QStringList m_row_labels;
    QStringList m_column_labels;
    int m_longest_label = -1;            // widest column label in the tick font, -1 = to be measured
    int m_label_room = 90;               // pixels a token label may take; longer ones are elided
    QHash<QString, int> m_label_widths;  // label -> width in the tick font (typing changes one label)
    struct TickKey {
        int x_step = -1, y_step = -1, rows = -1, columns = -1;
        int x_from = 0, x_to = 0, y_from = 0, y_to = 0;  // the drawn cells visible
        CellWindow drawn;
        bool operator==(const TickKey&) const = default;
    } m_ticks;          // what the tickers hold; rebuilt when this or the labels change
    QSize m_tick_size;  // the size m_ticks were estimated for
};

}  // namespace attn
