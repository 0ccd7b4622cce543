#pragma once

#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/HeatmapPlot.h"

// The QCustomPlot side of HeatmapPlot, kept out of its file; only forward declarations here so
// that no ui header includes qcustomplot.h.
class QCPAxisRect;
class QCPColorMap;
class QCPColorMapData;
class QCPLayerable;
class QCustomPlot;

namespace attn {

// What the cell overlay draws besides the colours; owned by the HeatmapPlot.
struct CellOverlayState {
    bool show_text = false;    // numbers in the cells
    bool show_legend = false;  // the "masked" swatch above the matrix
    bool compact = false;      // finer hatching for thumbnails
    bool highlighted = false;  // a frame around the matrix
    int selected_row = -1;     // outlined row (e.g. the selected query), -1 for none
    int selected_column = -1;  // with selected_row: that cell outlined more strongly
    bool draw_cells = false;   // the overlay draws the cell colours itself (exports; see drawCells)
};

// Up to this many cells a heatmap is exported as filled rectangles (vector in SVG and PDF);
// beyond, as one lossless image of a whole number of pixels per cell.
constexpr int kVectorCellLimit = 64 * 64;
// Pixels per cell of that image for a (rows, columns) matrix: 16 for 65 tokens, 1 from 2048 on.
int imagePixelsPerCell(int rows, int columns);

// The single place where a matrix becomes colour-map data: cell(column, row) = values(row, column),
// NaN where masked. The caller owns the result (QCPColorMap::setData takes it).
QCPColorMapData* makeColorMapData(const Matrix& values, const MaskMatrix& mask);
// The same, written into `data`, which must come from makeColorMapData, when it has the matrix's size, without
// reallocating; false (and `data` untouched) when it cannot be reused.
bool refillColorMapData(QCPColorMapData* data, const Matrix& values, const MaskMatrix& mask);
// The colour map as a QCustomPlot gradient, NaN (masked) in the neutral grey of Hatch.
void applyColorMap(QCPColorMap* plottable, ColorMaps::Map map);
// Hatching over masked cells, the numbers in the cells, the legend swatch and the frame, drawn
// above the colour map in every rendering (screen, image, SVG, PDF). Owned by `plot`.
QCPLayerable* createCellOverlay(QCustomPlot* plot, const HeatmapPlot* owner, QCPAxisRect* rect, QCPColorMap* map,
                                const CellOverlayState* state);

}  // namespace attn
