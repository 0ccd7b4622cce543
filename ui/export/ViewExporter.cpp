#include "ui/export/ViewExporter.h"

#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImageWriter>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attn {
namespace {

constexpr int kMaxSide = 16384;

void setupPainter(QPainter& painter)
{
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
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

Result<ExportView> ViewExporter::parseView(const QString& text)
{
    if (text == u"grid")
        return ExportView::Grid;
    if (text == u"head")
        return ExportView::Head;
    return Error{QStringLiteral("--view %1: this view cannot be exported in this build (use grid or head)").arg(text)};
}

Status ViewExporter::checkPath(const QString& path)
{
    return OutputPath::check(path, {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")});
}

QImage ViewExporter::toImage(const QSize& size, double scale, const Painter& paint)
{
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    QPainter painter(&image);
    setupPainter(painter);
    paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    return image;
}

Status ViewExporter::exportPicture(const QString& path, const QSize& size, double scale, const Painter& paint)
{
    if (Status ok = checkPath(path); !ok)
        return ok;
    if (size.width() < 1 || size.height() < 1 || size.width() > kMaxSide || size.height() > kMaxSide ||
        !(scale > 0.0 && scale <= 8.0) || size.width() * scale > kMaxSide || size.height() * scale > kMaxSide)
        return Error{QStringLiteral("%1: the size %2x%3 at scale %4 is not supported")
                         .arg(path)
                         .arg(size.width())
                         .arg(size.height())
                         .arg(scale)};
    const Format format = formatOf(path).value();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    const QRectF target(QPointF(0, 0), QSizeF(size));
    switch (format) {
        case Format::Png: {
            QImageWriter writer(&file, "png");
            if (!writer.write(toImage(size, scale, paint))) {
                file.cancelWriting();
                return Error{QStringLiteral("%1: cannot write the PNG: %2").arg(path, writer.errorString())};
            }
            break;
        }
        case Format::Svg: {
            QSvgGenerator generator;
            generator.setOutputDevice(&file);
            generator.setSize(size);
            generator.setViewBox(target);
            generator.setResolution(96);
            generator.setTitle(QStringLiteral("attention-lab"));
            QPainter painter;
            if (!painter.begin(&generator)) {
                file.cancelWriting();
                return Error{QStringLiteral("%1: cannot start the SVG").arg(path)};
            }
            setupPainter(painter);
            painter.fillRect(target, Qt::white);
            paint(&painter, target);
            painter.end();
            break;
        }
        case Format::Pdf: {
            // One point per pixel: the page is exactly the requested size.
            QPdfWriter writer(&file);
            writer.setResolution(72);
            writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
            writer.setPageMargins(QMarginsF(0, 0, 0, 0));
            writer.setCreator(QStringLiteral("attention-lab"));
            QPainter painter;
            if (!painter.begin(&writer)) {
                file.cancelWriting();
                return Error{QStringLiteral("%1: cannot start the PDF").arg(path)};
            }
            setupPainter(painter);
            paint(&painter, target);
            painter.end();
            break;
        }
    }
    if (file.error() != QFileDevice::NoError || !file.commit())
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    return {};
}

Status ViewExporter::exportView(const AttentionResult& result, const ExportRequest& request)
{
    if (Status ok = checkPath(request.path); !ok)
        return ok;
    if (Status head = HeadIndex::check(request.head, result.numHeads()); !head)
        return Error{QStringLiteral("--head: %1").arg(head.error())};
    // A non-owning pointer: the views only read the result while this function runs.
    const std::shared_ptr<const AttentionResult> shared(std::shared_ptr<void>(), &result);
    switch (request.view) {
        case ExportView::Grid: {
            HeadsGrid grid;
            grid.setAttribute(Qt::WA_DontShowOnScreen);
            grid.setColorMap(request.color_map);
            grid.resize(request.size);
            grid.setResult(shared);
            return exportPicture(request.path, request.size, request.scale,
                                 [&grid](QPainter* painter, const QRectF& target) { grid.render(painter, target); });
        }
        case ExportView::Head: {
            HeadView view;
            view.setAttribute(Qt::WA_DontShowOnScreen);
            view.setColorMap(request.color_map);
            view.resize(request.size);
            view.setResult(shared);
            view.setHead(request.head);
            return exportPicture(request.path, request.size, request.scale,
                                 [&view](QPainter* painter, const QRectF& target) { view.render(painter, target); });
        }
    }
    return Error{QStringLiteral("--view: unknown view")};
}

}  // namespace attn
