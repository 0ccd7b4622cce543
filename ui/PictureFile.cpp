#include "PictureFile.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attn {
namespace {

enum class Format { Png, Svg, Pdf, Unknown };

Format formatOf(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return Format::Png;
    if (suffix == QLatin1String("svg"))
        return Format::Svg;
    if (suffix == QLatin1String("pdf"))
        return Format::Pdf;
    return Format::Unknown;
}

QByteArray paintPng(const QSize& size, const PictureFile::PaintFunction& paint)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

QByteArray paintSvg(const QSize& size, const QString& title, const PictureFile::PaintFunction& paint)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setResolution(96);
    {
        QPainter painter(&generator);
        painter.fillRect(QRectF(QPointF(0, 0), QSizeF(size)), Qt::white);
        painter.setRenderHint(QPainter::Antialiasing);
        paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    return bytes;
}

QByteArray paintPdf(const QSize& size, const QString& title, const PictureFile::PaintFunction& paint)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        // One page the size of the picture at 96 dpi, no margins; the painting uses pixel units.
        QPdfWriter writer(&buffer);
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("attention-lab"));
        writer.setResolution(96);
        writer.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96.0, size.height() * 72.0 / 96.0), QPageSize::Point));
        writer.setPageMargins(QMarginsF());
        QPainter painter(&writer);
        painter.setRenderHint(QPainter::Antialiasing);
        // The writer's device may round the page by a point: scale the picture onto the page exactly.
        const QRect page = painter.viewport();
        painter.scale(double(page.width()) / size.width(), double(page.height()) / size.height());
        paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    return bytes;
}

}  // namespace

bool PictureFile::isSupported(const QString& path)
{
    return formatOf(path) != Format::Unknown;
}

Status PictureFile::write(const QString& path, const QSize& size, const PaintFunction& paint)
{
    const Format format = formatOf(path);
    if (format == Format::Unknown)
        return Error{QStringLiteral("%1: unknown picture format \"%2\" (use .png, .svg or .pdf)")
                         .arg(path, QFileInfo(path).suffix())};
    if (size.width() < 1 || size.height() < 1 || size.width() > 20000 || size.height() > 20000)
        return Error{QStringLiteral("%1: picture size %2x%3 is outside 1x1 .. 20000x20000")
                         .arg(path).arg(size.width()).arg(size.height())};
    const QFileInfo directory(QFileInfo(path).absolutePath());
    if (!directory.exists())
        return Error{QStringLiteral("%1: the directory %2 does not exist").arg(path, directory.filePath())};
    if (!directory.isDir())
        return Error{QStringLiteral("%1: %2 is not a directory").arg(path, directory.filePath())};
    if (QFileInfo(path).isDir())
        return Error{QStringLiteral("%1: is a directory").arg(path)};

    const QString title = QFileInfo(path).completeBaseName();
    QByteArray bytes;
    switch (format) {
    case Format::Png: bytes = paintPng(size, paint); break;
    case Format::Svg: bytes = paintSvg(size, title, paint); break;
    case Format::Pdf: bytes = paintPdf(size, title, paint); break;
    case Format::Unknown: break;
    }
    if (bytes.isEmpty())
        return Error{QStringLiteral("%1: the picture could not be drawn").arg(path)};

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    if (file.write(bytes) != bytes.size() || !file.commit())
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    return {};
}

}  // namespace attn
