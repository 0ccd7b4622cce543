#include "ui/export/ViewExporter.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/registry/ViewRegistry.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImageWriter>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <optional>

namespace attn {
namespace {

void setupPainter(QPainter& painter)
{
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.setRenderHint(QPainter::LosslessImageRendering);  // Qt's PDF engine would use JPEG
}

int dotsPerMeter(double dpi)
{
    return int(std::lround(dpi / 0.0254));
}

}  // namespace

Result<ViewExporter::Format> ViewExporter::formatOf(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == u"png")
        return Format::Png;
    if (suffix == u"svg")
        return Format::Svg;
    if (suffix == u"pdf")
        return Format::Pdf;
    return Error{QStringLiteral("%1: unknown extension '%2' (use .png, .svg or .pdf)")
                     .arg(path, suffix.isEmpty() ? QString() : QStringLiteral(".") + suffix)};
}

Status ViewExporter::checkPath(const QString& path)
{
    return OutputPath::check(path, {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")});
}

Status ViewExporter::checkSize(const QString& path, const QSize& size, double scale)
{
    const bool sides = size.width() >= 1 && size.height() >= 1 && size.width() <= kMaxSide && size.height() <= kMaxSide;
    const bool scaled =
        scale > 0.0 && scale <= 8.0 && size.width() * scale <= kMaxSide && size.height() * scale <= kMaxSide;
    if (sides && scaled)
        return {};
    return Error{QStringLiteral("%1: the size %2x%3%4 is outside 1 to %5 pixels per side")
                     .arg(path)
                     .arg(size.width())
                     .arg(size.height())
                     .arg(scale == 1.0 ? QString() : QStringLiteral(" at scale %1").arg(scale))
                     .arg(kMaxSide)};
}

QImage ViewExporter::toImage(const QSize& size, double scale, const Painter& paint)
{
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.setDotsPerMeterX(dotsPerMeter(kDpi));  // painted at 96 dpi: fonts in points resolve at 96
    image.setDotsPerMeterY(dotsPerMeter(kDpi));
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        setupPainter(painter);
        paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    // The file says how large the picture is: 96 of its pixels per inch, times the scale.
    image.setDotsPerMeterX(dotsPerMeter(kDpi * scale));
    image.setDotsPerMeterY(dotsPerMeter(kDpi * scale));
    return image;
}

QByteArray ViewExporter::portableSvg(const QByteArray& svg, const QSize& size)
{
    QString text = QString::fromUtf8(svg);
    static const QRegularExpression millimetres(QStringLiteral("<svg width=\"[0-9.]+mm\" height=\"[0-9.]+mm\""));
    text.replace(millimetres, QStringLiteral("<svg width=\"%1\" height=\"%2\"").arg(size.width()).arg(size.height()));
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"',]+)\""));
    QString out;
    out.reserve(text.size() + text.size() / 8);
    qsizetype last = 0;
    for (auto it = family.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.captured(1);
        const bool mono = name.contains(QLatin1String("mono"), Qt::CaseInsensitive);
        out += QStringView(text).mid(last, m.capturedStart() - last);
        out += (name == QLatin1String("monospace") || name == QLatin1String("sans-serif"))
                   ? m.captured(0)
                   : QStringLiteral("font-family=\"'%1', %2\"")
                         .arg(name, mono ? QStringLiteral("monospace") : QStringLiteral("sans-serif"));
        last = m.capturedEnd();
    }
    out += QStringView(text).mid(last);
    return out.toUtf8();
}

Status ViewExporter::exportPicture(const QString& path, const QSize& size, double scale, const Painter& paint,
                                   const QString& title)
{
    if (Status ok = checkPath(path); !ok)
        return ok;
    const Format format = formatOf(path).value();
    if (Status ok = checkSize(path, size, format == Format::Png ? scale : 1.0); !ok)
        return ok;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    const QRectF target(QPointF(0, 0), QSizeF(size));
    bool painted = false;
    switch (format) {
        case Format::Png: {
            QImageWriter writer(&file, "png");
            painted = writer.write(toImage(size, scale, paint));
            break;
        }
        case Format::Svg: {
            QBuffer buffer;
            buffer.open(QIODevice::WriteOnly);
            QSvgGenerator generator;
            generator.setOutputDevice(&buffer);
            generator.setSize(size);
            generator.setViewBox(target);
            generator.setResolution(int(kDpi));
            generator.setTitle(title);
            QPainter painter;
            if (painter.begin(&generator)) {
                setupPainter(painter);
                painter.fillRect(target, Qt::white);
                paint(&painter, target);
                painted = painter.end();
            }
            const QByteArray bytes = portableSvg(buffer.data(), size);
            painted = painted && file.write(bytes) == bytes.size();
            break;
        }
        case Format::Pdf: {
            // The page is the picture: 0.75 pt per pixel, no margins; the painter works in pixels.
            QPdfWriter writer(&file);
            writer.setResolution(int(kDpi));
            writer.setPageSize(QPageSize(QSizeF(size) * (72.0 / kDpi), QPageSize::Point, QStringLiteral("picture"),
                                         QPageSize::ExactMatch));
            writer.setPageMargins(QMarginsF(0, 0, 0, 0));
            writer.setCreator(QStringLiteral("attention-lab"));
            writer.setTitle(title);
            QPainter painter;
            if (painter.begin(&writer)) {
                setupPainter(painter);
                paint(&painter, target);
                painted = painter.end();
            }
            break;
        }
    }
    if (!painted || file.error() != QFileDevice::NoError) {
        file.cancelWriting();
        return Error{QStringLiteral("%1: cannot write the picture: %2").arg(path, file.errorString())};
    }
    if (!file.commit())
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    return {};
}

std::int64_t ViewExporter::heatmapCellLimit()
{
    return std::int64_t(HeatmapPlot::kReducedSide) * HeatmapPlot::kReducedSide;
}

Status ViewExporter::exportView(const AttentionResult& result, const ExportRequest& request)
{
    if (Status ok = checkPath(request.path); !ok)
        return ok;
    const Format format = formatOf(request.path).value();
    if (Status ok = checkSize(request.path, request.size, format == Format::Png ? request.scale : 1.0); !ok)
        return ok;
    const ViewRow& row = ViewRegistry::row(request.view);
    if (!row.picture || row.source != ViewSource::Result)
        return Error{row.needs_model
                         ? QStringLiteral("--view %1: draws a whole model (--model DIR), not one result").arg(row.key)
                         : QStringLiteral("--view %1: this view cannot be exported").arg(row.key)};
    // Hidden keys: the views draw a result whose rows are renormalised without them.
    std::optional<AttentionResult> shown;
    if (!request.hidden_keys.isEmpty()) {
        auto hidden = AttentionDisplay::hiddenKeys(request.hidden_keys, result.keyLen());
        if (!hidden)
            return Error{QStringLiteral("--hide-tokens: %1").arg(hidden.error())};
        shown = AttentionDisplay::withHiddenKeys(result, *hidden);
    }
    const AttentionResult& drawn = shown ? *shown : result;
    if (request.color_scale == ColorScale::Percentile)
        HeatmapData::computePercentile(drawn);  // a long input's: here, before anything is drawn
    PictureInput input;
    input.computed = &result;
    // A non-owning pointer: the views only read the result while this function runs.
    input.shown = std::shared_ptr<const AttentionResult>(std::shared_ptr<void>(), &drawn);
    input.png = format == Format::Png;
    auto picture = row.picture(input, request);
    if (!picture)
        return Error{picture.error()};
    return exportPicture(request.path, request.size, request.scale, picture->paint, picture->title);
}

Status ViewExporter::exportRun(const ModelRun& run, const ModelConfig& config, const QStringList& labels,
                               const QString& caption, const ExportRequest& request, const ModelSession* session)
{
    const ViewRow& row = ViewRegistry::row(request.view);
    const PictureMaker make = request.model_chain                  ? row.model_picture
                              : row.source == ViewSource::ModelRun ? row.picture
                                                                   : nullptr;
    if (!make)
        return Error{QStringLiteral("--view %1: draws one layer, not a whole model's run").arg(viewKey(request.view))};
    PictureInput input;
    input.run = &run;
    input.config = &config;
    input.session = session;
    input.labels = labels;
    input.caption = caption;
    input.png = formatOf(request.path) && formatOf(request.path).value() == Format::Png;
    auto picture = make(input, request);
    if (!picture)
        return Error{picture.error()};
    return exportPicture(request.path, request.size, request.scale, picture->paint, picture->title);
}

}  // namespace attn
