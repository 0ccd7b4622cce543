#pragma once

#include "ui/heatmap/HeatmapReduction.h"

#include <QPointF>
#include <QRect>
#include <QRectF>

namespace attn {

// The zoom and pan state of a heatmap: the view, a window of the matrix in its own cells (x:
// columns, y: rows; fractional while between cells), from the whole down to kMinZoomCells cells
// a side. Knows only the matrix's shape, not its cells.
class HeatmapZoom {
public:
    static constexpr int kMinZoomCells = 8;

    void setZoomable(bool zoomable) { m_zoomable = zoomable; }
    bool isZoomable() const { return m_zoomable; }
    // The matrix the view refers to: another shape shows the whole of it (the same shape keeps the
    // view, e.g. another head).
    void setShape(int rows, int columns);
    int rows() const { return m_rows; }
    int columns() const { return m_columns; }

    bool isZoomed() const { return !m_view.isEmpty(); }
    QRectF viewWindow() const;  // the whole matrix unless zoomed
    // Clamped to the matrix and the zoom limits; true when the view changed.
    bool setViewWindow(const QRectF& window);
    // The window zoomBy gives: one zoom level for both axes (the window keeps the matrix's
    // proportions), `factor` times closer, about `anchor` (a point of the matrix; the view's
    // centre when null). Empty when the matrix is.
    QRectF zoomedWindow(double factor, const QPointF* anchor) const;
    // Whole rows and columns at least partly visible: (first column, first row, columns, rows).
    QRect visibleCells() const;
    // The window of the matrix to draw for the view, in blocks of *blocks cells aligned on
    // multiples of their sides (so that panning does not shift the blocks), and that shape, for
    // at most `reduced_side` drawn cells a side (each side reduced on its own).
    CellWindow wantedWindow(int reduced_side, BlockShape* blocks) const;

private:
    bool m_zoomable = false;
    QRectF m_view;  // empty: the whole
    int m_rows = 0;
    int m_columns = 0;
};

}  // namespace attn
