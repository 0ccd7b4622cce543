#pragma once

#include "core/base/Result.h"
#include "ui/heatmap/ColorMaps.h"

#include <QImage>
#include <QSize>
#include <QString>

#include <functional>

class QPainter;
class QRectF;

namespace attn {

struct AttentionResult;

enum class ExportView { Grid, Head };

// What the command line's --export / --view / --head / --size ask for.
struct ExportRequest {
    QString path;  // .png, .svg or .pdf
    ExportView view = ExportView::Grid;
    int head = 0;
    QSize size{1200, 900};  // pixels (PNG) or points (SVG, PDF), 1..16384 per side
    double scale = 1.0;     // PNG only: device pixels per pixel
    ColorMaps::Map color_map = ColorMaps::Map::Viridis;
};

// Pictures of the views, drawn by the same widgets and code as the window. Every file is written
// atomically (QSaveFile): a failed export leaves no file behind and an existing one untouched.
class ViewExporter {
public:
    using Painter = std::function<void(QPainter* painter, const QRectF& target)>;
    enum class Format { Png, Svg, Pdf };

    static Result<Format> formatOf(const QString& path);       // by extension, case-insensitive
    static Result<ExportView> parseView(const QString& text);  // "grid" or "head"
    // The extension is known and the directory exists (and is a directory).
    static Status checkPath(const QString& path);

    // Draws `paint` into a file of the given size; the format comes from the extension.
    static Status exportPicture(const QString& path, const QSize& size, double scale, const Painter& paint);
    static QImage toImage(const QSize& size, double scale, const Painter& paint);

    // Builds the requested view offscreen for `result` and exports it (the command line's path).
    static Status exportView(const AttentionResult& result, const ExportRequest& request);
};

}  // namespace attn
