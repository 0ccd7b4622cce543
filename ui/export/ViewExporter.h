#pragma once

#include "core/analysis/AttentionRollout.h"
#include "core/analysis/HeadScores.h"
#include "core/base/Result.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapReduction.h"

#include <QList>

#include <optional>

#include <QImage>
#include <QSize>
#include <QString>

#include <cstdint>
#include <functional>

class QPainter;
class QRectF;

namespace attn {

struct AttentionResult;
struct ModelConfig;
struct ModelRun;

// Model: every layer x head of a whole model (exportModel); the others draw one result.
enum class ExportView { Grid, Head, Compare, Lines, Shapes, Model, QueryKey };

// What the command line's --export / --view / --head / --compare / --batch / --size ask for.
struct ExportRequest {
    QString path;  // .png, .svg or .pdf
    ExportView view = ExportView::Grid;
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
    std::optional<HeadScoreKind> mark_heads;  // model: heads framed by this score (--mark-heads)
    std::optional<HeadOrderKind> sort_heads;  // model: each layer's heads sorted by this score (--sort-heads)
    CellReduction reduction = CellReduction::Max;  // grid, head, compare: what a reduced pixel shows
};

// The one picture writer of attention-lab: every view, from the window and from --export, is
// written here, in one convention. A picture is laid out in pixels of 1/96 inch (CSS pixels):
// - PNG: size x scale pixels, 96 dpi;
// - SVG: width and height in px, a viewBox of the same size, every font with a generic fallback;
// - PDF: one page of 0.75 pt per pixel, vectors and text, images stored losslessly.
// Sides are 1 to kMaxSide pixels (also after the PNG scale). Every file is written atomically
// (QSaveFile): a failed export leaves no file behind and an existing one untouched.
class ViewExporter {
public:
    using Painter = std::function<void(QPainter* painter, const QRectF& target)>;
    enum class Format { Png, Svg, Pdf };
    static constexpr double kDpi = 96.0;
    static constexpr int kMaxSide = 16384;  // a 16k x 16k ARGB image is 1 GiB

    static Result<Format> formatOf(const QString& path);  // by extension, case-insensitive
    // The extension is known and the directory exists (and is a directory).
    static Status checkPath(const QString& path);
    // Sides within 1..kMaxSide, also multiplied by a PNG's scale (0 < scale <= 8).
    static Status checkSize(const QString& path, const QSize& size, double scale = 1.0);

    // Draws `paint` into a file of the given size; the format comes from the extension.
    static Status exportPicture(const QString& path, const QSize& size, double scale, const Painter& paint,
                                const QString& title = QStringLiteral("attention-lab"));
    static QImage toImage(const QSize& size, double scale, const Painter& paint);

    // The most cells one heatmap of a picture holds: larger matrices are drawn reduced
    // (HeatmapPlot::kReducedSide a side), whatever the picture's size.
    static std::int64_t heatmapCellLimit();

    // Builds the requested view offscreen for `result` and exports it (the command line's path).
    static Status exportView(const AttentionResult& result, const ExportRequest& request);
    // Every layer x head of a whole model's run as one grid (ExportView::Model), `caption` on top.
    static Status exportModel(const ModelRun& run, const QString& caption, const ExportRequest& request);
    // The whole model's chain of blocks with its shapes and parameter counts (ExportView::Shapes
    // with a model), for an input of `seq_len` tokens.
    // --view rollout: the run's attention rollout (T, T) and the last token's (or [CLS]'s) row as bars.
    static Status exportRollout(const ModelRun& run, const QStringList& tokens, const AttentionRollout::Options& options,
                                const QString& caption, const ExportRequest& request);
    static Status exportModelShapes(const ModelConfig& config, int seq_len, const QString& caption,
                                    const ExportRequest& request);

    // What QSvgGenerator writes made portable: the size in px instead of mm (viewers turn mm back
    // into different pixel counts), and a generic family after every font (a browser otherwise
    // falls back to a serif face).
    static QByteArray portableSvg(const QByteArray& svg, const QSize& size);
};

}  // namespace attn
