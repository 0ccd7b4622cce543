#pragma once

#include "core/base/Result.h"
#include "ui/views/ExportRequest.h"

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
class ModelSession;

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

    // request.view's picture of `result` (ViewRegistry's row: a view that draws one result),
    // the command line's path and the window's tests'.
    static Status exportView(const AttentionResult& result, const ExportRequest& request);
    // request.view's picture of a whole model's run: a view drawn from the run (Model, Rollout),
    // or with request.model_chain the view's picture of the whole model (--view model-shapes).
    // `labels`: the tokens as a person reads them; `caption` goes on top.
    // `session`: the opened folder, for the views that read its head (Lens).
    static Status exportRun(const ModelRun& run, const ModelConfig& config, const QStringList& labels,
                            const QString& caption, const ExportRequest& request,
                            const ModelSession* session = nullptr);

    // What QSvgGenerator writes made portable: the size in px instead of mm (viewers turn mm back
    // into different pixel counts), and a generic family after every font (a browser otherwise
    // falls back to a serif face).
    static QByteArray portableSvg(const QByteArray& svg, const QSize& size);
};

}  // namespace attn
