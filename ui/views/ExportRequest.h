#pragma once

#include "core/analysis/AttentionRollout.h"
#include "core/analysis/HeadScores.h"
#include "core/lens/LogitMetric.h"
#include "core/model/ForwardIntervention.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/views/View.h"

#include <QList>
#include <QSize>
#include <QString>

#include <optional>

namespace attn {

// What the command line's --export / --view / --head / --compare / --batch / --size ask for.
struct ExportRequest {
    QString path;  // .png, .svg or .pdf
    View view = View::Grid;
    // --view model-shapes: the view's picture of the whole model (ViewRow::model_picture) instead
    // of the selected layer's.
    bool model_chain = false;
    int head = 0;  // head, lines (-1: all heads overlaid) and shapes (the head highlighted)
    int compare_a = 0;
    int compare_b = 1;
    int batch = 1;          // shapes: the batch size B drawn
    QSize size{1200, 900};  // pixels, see ViewExporter
    double scale = 1.0;     // PNG only: device pixels per pixel
    ColorMaps::Map color_map = ColorMaps::Map::Viridis;
    ColorScale color_scale = ColorScale::WithoutOneKeyRows;  // grid, head and compare's A and B
    // Key positions hidden in every view (each row renormalised over the others); every one must
    // be inside the input and at least one key must stay.
    QList<int> hidden_keys;
    double top_mass = 1.0;  // grid and head: per row the strongest keys up to this fraction, the rest dimmed
    HeadAggregate aggregate = HeadAggregate::None;  // grid and model: an extra head of every head fused
    std::optional<HeadScoreKind> mark_heads;        // model: heads framed by this score (--mark-heads)
    std::optional<HeadOrderKind> sort_heads;        // model: each layer's heads sorted by this score (--sort-heads)
    CellReduction reduction = CellReduction::Max;   // grid, head, compare: what a reduced pixel shows
    AttentionRollout::Options rollout;              // rollout: --rollout-fusion, --residual-weight
    int top_k = 5;                                  // lens: --top-k
    // --metric's tokens: the lens tracks its TARGET, the attribution splits its logit (difference).
    std::optional<MetricTokens> metric;
    std::optional<int> position;                      // attribution and ablation: --position (default: the last token)
    HeadAblation ablation_mode = HeadAblation::Zero;  // ablation: --ablation
};

}  // namespace attn
