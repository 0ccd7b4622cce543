#pragma once

#include "ui/heatmap/HeatmapReduction.h"

#include <QRect>
#include <QString>

namespace attn {

// What a drawn cell of a (rows, columns) matrix stands for when HeatmapPlot reduces it ("each
// cell: the largest of 20 x 20"), or empty when every cell is drawn: for titles and colour-bar
// notes, before the plot has reduced it.
QString reductionNote(int rows, int columns, CellReduction how);

// What a zoomed plot shows, for attention (rows are queries, columns keys): "queries 4,096–4,159,
// keys 4,000–4,063 of 8,192 · cells 1:1", or with blocks "… · each cell: the largest of 4 x 4".
// `cells` is (first column, first row, columns, rows) as HeatmapPlot::visibleCells.
QString zoomNote(const QRect& cells, int rows, int columns, BlockShape blocks, CellReduction how);

}  // namespace attn
