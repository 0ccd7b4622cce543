#pragma once

#include "ui/heatmap/HeatmapReduction.h"

#include <QString>

namespace attn {

// What a drawn cell of a (rows, columns) matrix stands for when HeatmapPlot reduces it ("each
// cell: the largest of 20 x 20"), or empty when every cell is drawn: for titles and colour-bar
// notes, before the plot has reduced it.
QString reductionNote(int rows, int columns, CellReduction how);

}  // namespace attn
