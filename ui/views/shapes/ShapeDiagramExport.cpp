#include "ui/views/shapes/ShapeDiagramExport.h"

#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/views/shapes/ShapeDiagramPainter.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attn {
namespace {

constexpr int kMaxSide = 16384;  // pixels; a 16k x 16k ARGB image is 1 GiB

enum class Format { Png, Svg, Pdf };

// QSvgGenerator gives the picture's size in millimetres at its resolution, which viewers turn
// back into different pixel counts (Qt at 90 dpi, browsers at 96), and names fonts without a
// fallback. Sizes in pixels and a generic family after each font make the file look the same
// everywhere.
QByteArray portableSvg(const QByteArray& svg, QSize size)
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

}  // namespace

ShapeDiagramPainter ShapeDiagramExport::painterFor(const AttentionResult& result, int batch, int head)
{
    ShapeDiagramPainter diagram(ShapeModel(ShapeConfig::fromResult(result, batch)), head);
    QString caption = result.weights_description;
    if (!caption.isEmpty())
        caption += QStringLiteral(" weights");
    diagram.setCaption(caption);
    return diagram;
}

Status ShapeDiagramExport::exportTo(const AttentionResult& result, int batch, int head, const QString& path, QSize size)
{
    if (batch < 1)
        return Error{QStringLiteral("--batch: the batch size must be a positive integer, got %1").arg(batch)};
    if (result.numHeads() <= 0 || result.seqLen() <= 0)
        return Error{QStringLiteral("%1: there is no computation to draw").arg(path)};
    if (Status exists = HeadIndex::check(head, result.numHeads()); !exists)
        return Error{QStringLiteral("--head: %1").arg(exists.error())};
    return exportTo(painterFor(result, batch, head), path, size);
}

Status ShapeDiagramExport::exportTo(const ShapeDiagramPainter& diagram, const QString& path, QSize size)
{
    if (Status where = OutputPath::check(path, {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")});
        !where)
        return where;
    const QString suffix = QFileInfo(path).suffix().toLower();
    const Format format = suffix == QLatin1String("png")   ? Format::Png
                          : suffix == QLatin1String("svg") ? Format::Svg
                                                           : Format::Pdf;
    if (size.width() < 16 || size.height() < 16 || size.width() > kMaxSide || size.height() > kMaxSide)
        return Error{QStringLiteral("--size: %1x%2 is outside 16 to %3 pixels per side")
                         .arg(size.width())
                         .arg(size.height())
                         .arg(kMaxSide)};

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    const QRectF rect(QPointF(0, 0), QSizeF(size));

    bool painted = false;
    switch (format) {
        case Format::Png: {
            QImage image(size, QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::white);
            {
                QPainter painter(&image);
                diagram.paint(painter, rect);
            }
            painted = image.save(&file, "PNG");
            break;
        }
        case Format::Svg: {
            QBuffer buffer;
            buffer.open(QIODevice::WriteOnly);
            QSvgGenerator svg;
            svg.setOutputDevice(&buffer);
            svg.setSize(size);
            svg.setViewBox(rect);
            svg.setTitle(QStringLiteral("attention-lab: tensor shapes"));
            svg.setDescription(QStringLiteral("Shape diagram of multi-head attention"));
            QPainter painter;
            if (painter.begin(&svg)) {
                diagram.paint(painter, rect);
                painted = painter.end();
            }
            const QByteArray bytes = portableSvg(buffer.data(), size);
            painted = painted && file.write(bytes) == bytes.size();
            break;
        }
        case Format::Pdf: {
            // One page the size of the picture: 1 px = 0.75 pt (96 dpi), no margins.
            QPdfWriter pdf(&file);
            pdf.setCreator(QStringLiteral("attention-lab"));
            pdf.setTitle(QStringLiteral("Tensor shapes"));
            pdf.setResolution(96);
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            pdf.setPageSize(QPageSize(QSizeF(size.width() * 0.75, size.height() * 0.75), QPageSize::Point,
                                      QStringLiteral("picture"), QPageSize::ExactMatch));
            QPainter painter;
            if (painter.begin(&pdf)) {
                diagram.paint(painter, QRectF(0, 0, pdf.width(), pdf.height()));
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

}  // namespace attn
