#pragma once

#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/HeatmapPlot.h"

#include <qcustomplot.h>

#include <QMargins>
#include <QSharedPointer>

namespace attn {

// What HeatmapPlot holds of QCustomPlot, shared by its files: HeatmapPlot.cpp (set-up, queries,
// rendering, mouse), HeatmapPlotLabels.cpp (texts, labels, square cells), HeatmapPlotColours.cpp
// (values to colours) and HeatmapPlotReduction.cpp (matrices drawn whole or reduced).
struct HeatmapPlot::Private {
    QCustomPlot* plot = nullptr;
    QCPAxisRect* rect = nullptr;
    QCPColorMap* map = nullptr;
    QCPColorScale* scale = nullptr;
    QCPTextElement* title = nullptr;
    QCPMarginGroup* margins = nullptr;
    CellOverlayState overlay;
    QCPColorMapData* made_data = nullptr;  // the map's data while it is makeColorMapData's
    QSharedPointer<QCPAxisTickerText> x_ticker{new QCPAxisTickerText};
    QSharedPointer<QCPAxisTickerText> y_ticker{new QCPAxisTickerText};
    QMargins base_margins{6, 6, 6, 6};
    QMargins square_margins;  // added around the layout so that cells come out square
    bool squaring = false;
};

}  // namespace attn
