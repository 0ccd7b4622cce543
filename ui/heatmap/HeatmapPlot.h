#pragma once

#include "core/base/MaskMatrix.h"
#include "core/base/Tensor.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/HeatmapColouring.h"
#include "ui/heatmap/HeatmapLabels.h"
#include "ui/heatmap/HeatmapReducer.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/heatmap/HeatmapZoom.h"

#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QPainter;

namespace attn {

// THE one QCustomPlot wrapper of attention-lab: any matrix as a heatmap.
// - rows run down the y axis (row 0 on TOP), columns along x; for attention rows are queries and
//   columns are keys; every cell is centred on integer coordinates and drawn without interpolation;
// - colours come from ColorMaps, over a fixed range (shared between plots) or the data's range
//   (symmetric around 0 for a diverging map);
// - masked cells are drawn hatched on a neutral grey, never in the colour of 0;
// - cell values are written inside the cells when they are large enough to read them;
// - hovering and clicking report (row, column);
// - a matrix with a side over kReducedSide is drawn reduced (HeatmapReduction): each drawn cell
//   is the largest (or the mean) of the factor x factor cells under it, computed from the floats,
//   so no copy of the matrix's size is made; labels are those of each block's first row or column;
// - zoom and pan (setZoomable: wheel about the cursor, drag, double-click to reset): the visible
//   window is reduced again from the floats, on the same worker, until it has no more than
//   kReducedSide cells a side and shows real cells and their labels.
// Renders to the screen, to any QPainter (vector for SVG/PDF) and to a QImage.
class HeatmapPlot : public QWidget {
    Q_OBJECT
public:
    enum class CellText { Auto, Never, Always };
    // How values become colours over the value range: linearly; logarithmically (values below the
    // range's low end, which must be positive, in the bottom colour); or each row divided by its
    // largest unmasked value first, over 0 .. 1. Numbers, hover and clicks always show the values.
    using ColorMapping = HeatmapColouring::Mapping;  // Linear, Log, PerRow

    explicit HeatmapPlot(QWidget* parent = nullptr);
    ~HeatmapPlot() override;

    // values (rows, columns); labels may be empty (then indices are shown) or one per row/column.
    // A matrix to reduce, on screen and with `keep_alive` owning `values` (e.g. the result), is
    // reduced on a worker thread: the plot keeps its last picture until matrixShown.
    void setMatrix(const Matrix& values, const QStringList& row_labels, const QStringList& column_labels,
                   const MaskMatrix& mask = {}, std::shared_ptr<const void> keep_alive = {});
    // A matrix already reduced elsewhere (a long input's head, reduced by the engine as it was
    // computed: reduceCells' blocks), of full_rows x full_columns cells, shown as setMatrix would.
    void setReducedMatrix(ReducedMatrix drawn, int full_rows, int full_columns, const QStringList& row_labels,
                          const QStringList& column_labels);
    // Drawn cells per side above which a matrix is reduced: about the pixels of a large plot.
    static constexpr int kReducedSide = HeatmapReducer::kReducedSide;
    // What a drawn cell of a reduced matrix shows (default the largest cell under it); applies
    // from the next setMatrix.
    void setReduction(CellReduction how) { m_reduction = how; }
    CellReduction reduction() const { return m_reduction; }
    // Matrix cells per drawn cell along the more reduced side; 1: all. Each side is reduced on its
    // own (blockShape).
    int reductionFactor() const { return std::max(m_blocks.rows, m_blocks.columns); }
    BlockShape blockShape() const { return m_blocks; }
    int fullRowCount() const { return m_full_rows; }  // the matrix given, before any reduction
    int fullColumnCount() const { return m_full_columns; }
    // "each cell: the largest of 20 x 20" (rows x columns) while reduced, else empty.
    QString reductionNote() const;

    // Zoom and pan. A zoomable plot zooms with the mouse wheel about the cursor, pans by dragging
    // (a click that does not move still clicks a cell) or with the arrow keys once clicked
    // (Shift: one cell) and resets on a double-click. The view
    // is a window of the matrix from the whole down to kMinZoomCells cells a side; a matrix
    // drawn whole just shows that window, a reduced one is reduced again for it (on the worker
    // thread when on screen; the newest request wins), so a window of at most kReducedSide
    // cells a side shows every cell, one colour each, with its own labels.
    static constexpr int kMinZoomCells = HeatmapZoom::kMinZoomCells;
    void setZoomable(bool zoomable);
    bool isZoomable() const { return m_zoom.isZoomable(); }
    // Zooms in (factor > 1) or out about a widget position (the plot's centre when null).
    void zoomBy(double factor, QPointF about = QPointF(-1, -1));
    void zoomIn() { zoomBy(2.0); }
    void zoomOut() { zoomBy(0.5); }
    void resetZoom() { setViewWindow(QRectF()); }
    void panBy(double columns, double rows);  // in cells of the matrix
    bool isZoomed() const { return m_zoom.isZoomed(); }
    // The window shown, in cells of the matrix (x: columns, y: rows; fractional while between
    // cells): the whole matrix unless zoomed.
    QRectF viewWindow() const { return m_zoom.viewWindow(); }
    void setViewWindow(const QRectF& window);  // clamped to the matrix and the zoom limits
    // Whole rows and columns at least partly visible: (first column, first row, columns, rows).
    QRect visibleCells() const { return m_zoom.visibleCells(); }
    // What the drawn cells cover: drawn cell (r, c) is the block of the matrix from
    // (window.first_row + r * blocks.rows, window.first_column + c * blocks.columns).
    CellWindow drawnWindow() const { return m_drawn; }
    // A reduction runs on the worker, or waits for one to end.
    // The widget position of a point of the matrix in its cells (row 2.5, column 7.5: the centre
    // of cell (2, 7)), as laid out by the last replot.
    QPointF positionOf(double row, double column) const;
    bool reductionPending() const { return m_reducer.isPending(); }
    void setColorMap(ColorMaps::Map map);
    void setValueRange(double low, double high);  // fixed range, e.g. shared by a grid of plots
    void setAutoValueRange();                     // the data's range (symmetric for Diverging)
    void setColorMapping(ColorMapping mapping);
    ColorMapping colorMapping() const { return m_colouring.mapping(); }
    // Cells drawn faded towards white (true), e.g. outside a row's strongest keys; empty: none.
    void setDimmed(const MaskMatrix& dimmed);
    // exBERT's top X %: per row, the keys outside the strongest that reach this share of the
    // row's weight (AttentionDisplay::topMass) are dimmed; 1: none. A matrix drawn whole is dimmed
    // at once; a reduced one from its next setMatrix, a block dimmed when none of its cells is kept
    // (found per row while reducing, without a mask of the matrix's size).
    void setTopMass(double fraction);
    double topMass() const { return m_colouring.topMass(); }
    bool isDimmed(int row, int column) const { return m_colouring.isDimmed(row, column); }
    bool hasDimmed() const { return m_colouring.hasDimmed(); }
    void setColorBarVisible(bool visible);
    // Title and colour-bar label may hold length variants separated by U+009C, longest first:
    // the first that fits is shown (else it is elided), at every size and in every picture.
    void setColorBarLabel(const QString& label);
    void setTitle(const QString& title);
    QString title() const;          // as shown at the current size
    QString colorBarLabel() const;  // as shown at the current size
    void setAxisTitles(const QString& x_title, const QString& y_title);
    void setCellText(CellText mode);
    void setCompact(bool compact);  // small fonts and margins, for a grid of thumbnails
    bool isCompact() const { return m_compact; }
    void setHighlighted(bool highlighted);  // a frame on screen, e.g. for the current head of a grid
    void setSquareCells(bool square);       // pad the plot so that every cell is square
    // Outlines a row (column -1) or one cell, e.g. the query and key selected elsewhere; row -1
    // clears. Drawn on screen only (render leaves it out); out-of-range values draw nothing.
    void setSelection(int row, int column = -1);
    int selectedRow() const { return m_selected_row; }
    int selectedColumn() const { return m_selected_column; }

    // The drawn cells (after any reduction): what the colour map and the cell overlay hold.
    int rowCount() const { return int(m_values.rows()); }
    int columnCount() const { return int(m_values.cols()); }
    const Matrix& values() const { return m_values; }
    bool isMasked(int row, int column) const { return m_mask.size() > 0 && m_mask(row, column); }  // a drawn cell
    bool hasMask() const { return m_mask.size() > 0; }  // false when no cell is masked
    const MaskMatrix& mask() const { return m_mask; }   // (rows, columns) drawn, or empty
    // Labels of the matrix's own rows and columns (not reduced).
    QString rowLabel(int row) const;
    QString columnLabel(int column) const;
    // The token labels on the axes now, as (matrix row or column, text): thinned to what fits and
    // only within the view.
    QList<std::pair<int, QString>> shownRowLabels() const;
    QList<std::pair<int, QString>> shownColumnLabels() const;
    QRect cellsRect() const;  // where the cells are drawn, in the widget
    double valueLow() const { return m_colouring.valueLow(); }
    double valueHigh() const { return m_colouring.valueHigh(); }
    // What the colours are computed from: the values, or (PerRow) the row-scaled values over
    // colourLow() .. colourHigh() = 0 .. 1; with Log the gradient position is logarithmic.
    const Matrix& colourValues() const { return m_colouring.colourValues(m_values); }
    double colourLow() const { return m_colouring.colourLow(); }
    double colourHigh() const { return m_colouring.colourHigh(); }
    // The gradient position 0 .. 1 of a value at (row, column), as the cell is coloured.
    double colourPosition(int row, int column) const { return m_colouring.colourPosition(m_values, row, column); }
    ColorMaps::Map colorMap() const { return m_colouring.map(); }

    // What QCustomPlot holds for cell (key = column, value = row): the plotted number, NaN when
    // masked. Tests read the plot through this, not the matrix it was given.
    double plottedCell(int key_index, int value_index) const;
    int plottedKeySize() const;
    int plottedValueSize() const;
    bool cellTextVisible() const;  // whether numbers are currently written in the cells

    // The cell under a widget position (of the matrix: a reduced cell gives its block's first
    // row and column), or false outside the matrix.
    bool cellAt(const QPoint& position, int* row, int* column) const;

    void render(QPainter* painter, const QRectF& target);  // vectors where the device allows
    QImage toImage(const QSize& size, double scale = 1.0);
    void replotNow();  // immediate replot (normally replots are queued and coalesced)

signals:
    void cellHovered(int row, int column, double value);
    void hoverLeft();
    void cellClicked(int row, int column);
    void replotted();
    void matrixShown();  // the last setMatrix is what the plot holds now
    void viewChanged();  // zoomed, panned, or other cells drawn (e.g. a reduction arrived)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Private;  // the QCustomPlot objects, and the labels on its axes
    std::unique_ptr<Private> d;
    // The drawn cells: the matrix, or a window of it reduced (m_blocks matrix cells per drawn
    // cell, covering m_drawn of the full_rows x full_columns matrix).
    Matrix m_values;
    MaskMatrix m_mask;
    BlockShape m_blocks;
    int m_full_rows = 0;
    int m_full_columns = 0;
    CellWindow m_drawn;
    std::vector<float> m_row_tops;  // see DrawnCells::row_tops
    HeatmapColouring m_colouring;
    HeatmapZoom m_zoom;  // before m_reducer, which refers to it
    HeatmapReducer m_reducer;
    CellReduction m_reduction = CellReduction::Max;
    int m_selected_row = -1;  // of the matrix; the overlay outlines the drawn cell holding it
    int m_selected_column = -1;
    CellText m_cell_text = CellText::Auto;
    bool m_compact = false;
    QSize m_render_size;  // valid while rendering to a target of another size
    bool m_square_cells = false;

    DrawnGrid drawnGrid() const;
    ReductionRecipe recipe() const;
    bool isOnScreen() const;
    void outlineSelection();
    void showDrawn(DrawnCells drawn);
    void reducerIdle(bool wanted, bool again);
    void applyView();
    void requestReduction(bool again = false);  // again: even if the drawn cells hold the view
    void reduceNow();
    QSize textSize() const;  // what the texts are fitted to: the picture's while rendering, else the widget's
    void updateLabels();
    void scheduleReplot();
    void makeCellsSquare();
};

}  // namespace attn
