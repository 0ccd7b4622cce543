// Renders the application's one SVG icon to the PNG sizes of the hicolor icon theme, at build
// time, so the PNGs are generated from the source and never committed:
//   render_icon SOURCE.svg OUTPUT_DIR SIZE...
// writes OUTPUT_DIR/<SIZE>x<SIZE>/apps/<name of SOURCE>.png for each SIZE (the theme's layout).
#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QStringList>
#include <QSvgRenderer>

#include <cstdio>

namespace {

constexpr int kLargestSize = 1024;

int fail(const QString& message)
{
    std::fprintf(stderr, "error: %s\n", qPrintable(message));
    return 1;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 4)
        return fail(QStringLiteral("usage: render_icon SOURCE.svg OUTPUT_DIR SIZE..."));
    const QString source = QString::fromLocal8Bit(argv[1]);
    const QDir output(QString::fromLocal8Bit(argv[2]));

    QList<int> sizes;
    for (int i = 3; i < argc; ++i) {
        bool ok = false;
        const int size = QByteArray(argv[i]).toInt(&ok);
        if (!ok || size < 1 || size > kLargestSize)
            return fail(QStringLiteral("size '%1': expected an integer from 1 to %2")
                            .arg(QString::fromLocal8Bit(argv[i]))
                            .arg(kLargestSize));
        sizes.append(size);
    }

    QSvgRenderer renderer(source);
    if (!renderer.isValid())
        return fail(QStringLiteral("%1: not a valid SVG image").arg(source));
    if (renderer.viewBoxF().width() != renderer.viewBoxF().height())
        return fail(QStringLiteral("%1: an icon must be square").arg(source));

    const QString name = QFileInfo(source).completeBaseName() + QStringLiteral(".png");
    for (int size : sizes) {
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        renderer.render(&painter, QRectF(0, 0, size, size));
        painter.end();

        const QString folder = QStringLiteral("%1x%1/apps").arg(size);
        if (!output.mkpath(folder))
            return fail(QStringLiteral("%1: cannot create the folder").arg(output.filePath(folder)));
        QSaveFile file(output.filePath(folder + u'/' + name));
        if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
            return fail(QStringLiteral("%1: cannot write it (%2)").arg(file.fileName(), file.errorString()));
    }
    return 0;
}
