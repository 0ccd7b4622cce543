#include "ui/export/ViewExporter.h"

#include "ui/heatmap/HeatmapData.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/export/CompareExport.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelGridPainter.h"
#include "ui/views/qk/QueryKeyPainter.h"
#include "ui/views/rollout/RolloutPainter.h"
#include "ui/views/shapes/ModelChainPainter.h"
#include "ui/views/shapes/ShapeDiagramExport.h"
#include "ui/views/shapes/ShapeDiagramPainter.h"

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
    const bool one_head = request.view == ExportView::Grid || request.view == ExportView::Head;
    if (one_head)
        if (Status head = HeadIndex::check(request.head, result.numHeads()); !head)
            return Error{QStringLiteral("--head: %1").arg(head.error())};
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
    // A non-owning pointer: the views only read the result while this function runs.
    const std::shared_ptr<const AttentionResult> shared(std::shared_ptr<void>(), &drawn);
    switch (request.view) {
        case ExportView::Grid: {
            HeadsGrid grid;
            grid.setAttribute(Qt::WA_DontShowOnScreen);
            grid.setColorMap(request.color_map);
            grid.setColorScale(request.color_scale);
            grid.setTopMass(request.top_mass);
            grid.setReduction(request.reduction);
            grid.setAggregate(request.aggregate);
            grid.resize(request.size);
            grid.setResult(shared);
            return exportPicture(request.path, request.size, request.scale,
                                 [&grid](QPainter* painter, const QRectF& target) { grid.render(painter, target); });
        }
        case ExportView::Head: {
            HeadView view;
            view.setAttribute(Qt::WA_DontShowOnScreen);
            view.setColorMap(request.color_map);
            view.setColorScale(request.color_scale);
            view.setTopMass(request.top_mass);
            view.setReduction(request.reduction);
            view.resize(request.size);
            view.setResult(shared);
            view.setHead(request.head);
            return exportPicture(request.path, request.size, request.scale,
                                 [&view](QPainter* painter, const QRectF& target) { view.render(painter, target); });
        }
        case ExportView::Compare:
            return CompareExport::exportCompare(drawn, request.compare_a, request.compare_b, request.path, request.size,
                                                request.scale, request.color_scale, request.reduction);
        case ExportView::Lines:
            return CompareExport::exportLines(drawn, request.head, request.path, request.size, request.scale,
                                              request.top_mass);
        case ExportView::QueryKey: {
            QueryKeyPainter scatter;
            scatter.setResult(shared);  // Q and K as computed; the hidden keys marked
            scatter.setHead(request.head);
            if (!scatter.problem().isEmpty())
                return Error{scatter.problem()};
            return exportPicture(
                request.path, request.size, request.scale,
                [&scatter](QPainter* painter, const QRectF& target) { scatter.paint(*painter, target); },
                QStringLiteral("attention-lab: query-key space"));
        }
        case ExportView::Shapes: {
            if (Status ok = ShapeDiagramExport::check(result, request.batch, request.head); !ok)
                return ok;
            const ShapeDiagramPainter diagram = ShapeDiagramExport::painterFor(result, request.batch, request.head);
            return exportPicture(
                request.path, request.size, request.scale,
                [&diagram](QPainter* painter, const QRectF& target) { diagram.paint(*painter, target); },
                QStringLiteral("attention-lab: tensor shapes"));
        }
        case ExportView::Model:
            return Error{QStringLiteral("--view model: draws a whole model (--model DIR), not one result")};
    }
    return Error{QStringLiteral("--view: unknown view")};
}

Status ViewExporter::exportModel(const ModelRun& run, const QString& caption, const ExportRequest& request)
{
    ModelGridPainter grid;
    grid.setRun(std::shared_ptr<const ModelRun>(std::shared_ptr<void>(), &run));  // read while this runs
    grid.setCaption(caption);
    grid.setColorMap(request.color_map);
    grid.setColorScale(request.color_scale);
    if (!request.hidden_keys.isEmpty()) {
        if (auto hidden = AttentionDisplay::hiddenKeys(request.hidden_keys, run.seqLen()); !hidden)
            return Error{QStringLiteral("--hide-tokens: %1").arg(hidden.error())};
        grid.setHiddenKeys(request.hidden_keys);
    }
    grid.setReduction(request.reduction == CellReduction::Mean ? ThumbnailReduction::Mean : ThumbnailReduction::Max);
    grid.setAggregate(headFusionOf(request.aggregate));
    if (request.mark_heads || request.sort_heads) {
        const std::vector<HeadScore> scores = HeadScores::compute(run.attention, run.token_ids);
        if (request.mark_heads) {
            const QString name = headScoreKindKey(*request.mark_heads);
            grid.setHeadMarks(headScoreValues(scores, name), name);
        }
        if (request.sort_heads) {
            const QString name = headOrderKindKey(*request.sort_heads);
            grid.setHeadOrder(headScoreValues(scores, name), name);
        }
    }
    const bool png = formatOf(request.path) && formatOf(request.path).value() == Format::Png;
    const double pixel_ratio = png ? request.scale : 2.0;  // vector pages are zoomed: finer reduced images
    return exportPicture(
        request.path, request.size, request.scale,
        [&](QPainter* painter, const QRectF& target) {
            grid.paint(*painter, target, ModelGridPainter::Output::Picture, pixel_ratio);
        },
        QStringLiteral("attention-lab: every layer and head"));
}

Status ViewExporter::exportRollout(const ModelRun& run, const QStringList& tokens,
                                   const AttentionRollout::Options& options, const QString& caption,
                                   const ExportRequest& request)
{
    RolloutPainter rollout;
    rollout.setRun(std::shared_ptr<const ModelRun>(std::shared_ptr<void>(), &run), tokens);  // read while this runs
    rollout.setOptions(options);
    if (!rollout.error().isEmpty())
        return Error{rollout.error()};
    if (!request.hidden_keys.isEmpty()) {
        if (auto hidden = AttentionDisplay::hiddenKeys(request.hidden_keys, run.seqLen()); !hidden)
            return Error{QStringLiteral("--hide-tokens: %1").arg(hidden.error())};
        rollout.setHiddenKeys(request.hidden_keys);
    }
    rollout.setColorScale(request.color_scale);
    rollout.setCaption(caption);
    rollout.setColorMap(request.color_map);
    return exportPicture(
        request.path, request.size, request.scale,
        [&rollout](QPainter* painter, const QRectF& target) { rollout.paint(*painter, target); },
        QStringLiteral("attention-lab: attention rollout"));
}

Status ViewExporter::exportModelShapes(const ModelConfig& config, int seq_len, const QString& caption,
                                       const ExportRequest& request)
{
    ModelChainPainter chain(config, seq_len);
    chain.setCaption(caption);
    return exportPicture(
        request.path, request.size, request.scale,
        [&chain](QPainter* painter, const QRectF& target) { chain.paint(*painter, target); },
        QStringLiteral("attention-lab: the shapes of a whole model"));
}

}  // namespace attn
