// The masked-cell hatch of a causal map in SVG and PDF, zoomed in as a reader would (librsvg and
// poppler at 8 times the picture's size): every line stays inside the masked cells, so the cells
// beside them show their own colour up to their edges, with no stub of a line on them.
#include "tests/support/ExternalTool.h"
#include "tests/support/TestSuite.h"
#include "ui/export/ViewExporter.h"
#include "ui/heatmap/HeatmapPlot.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace attn;

namespace {

constexpr int kTokens = 6;
constexpr int kZoom = 8;  // device pixels per pixel of the picture

void keep(const QString& path)
{
    if (const QString dir = qEnvironmentVariable("ATTENTION_PICTURES_DIR"); !dir.isEmpty()) {
        const QString target = QDir(dir).filePath(QFileInfo(path).fileName());
        QFile::remove(target);
        QFile::copy(path, target);
    }
}

int channelDistance(QRgb a, QRgb b)
{
    return std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
}

}  // namespace

class TestHatchVector : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // A causal map of kTokens tokens, laid out at `size` on screen as in the picture.
    static void fill(HeatmapPlot& plot, QSize size)
    {
        Matrix values(kTokens, kTokens);
        MaskMatrix mask(kTokens, kTokens);
        QStringList labels;
        for (int r = 0; r < kTokens; ++r) {
            labels << QStringLiteral("t%1").arg(r);
            for (int c = 0; c < kTokens; ++c) {
                mask(r, c) = c > r;
                values(r, c) = c > r ? 0.0f : 1.0f / float(r + 1) + 0.05f * float(c);
            }
        }
        plot.setCellText(HeatmapPlot::CellText::Never);  // nothing but colour inside the cells
        plot.setMatrix(values, labels, labels, mask);
        plot.setAttribute(Qt::WA_DontShowOnScreen);
        plot.resize(size);
        plot.show();  // its layout gives the plot the whole size, as render does
        QCoreApplication::processEvents();
        plot.replotNow();
    }

    // The first pixel, from `from` in direction `step`, that is not about the colour at `from`.
    static int edgeFrom(const QImage& image, QPoint from, QPoint step)
    {
        const QRgb own = image.pixel(from);
        QPoint at = from;
        while (image.rect().contains(at + step) && channelDistance(image.pixel(at + step), own) <= 64)
            at += step;
        return step.x() != 0 ? at.x() + step.x() : at.y() + step.y();
    }

    // The unmasked cells beside masked ones are the diagonal (r, r): masked above (r > 0) and to
    // the right (r < T - 1). Each such edge is found where the viewer drew it (the median of scans
    // from the cell's middle: a stub stops a few scans early, not half of them), then every pixel
    // of the cell's outer quarter along it, less the edge itself (kEdge device pixels, where the
    // two fills blend), must have the cell's own colour. Returns how many do not.
    static int inkOnUnmaskedCells(const QImage& image, const HeatmapPlot& plot, QString* where)
    {
        constexpr int kEdge = 2;        // device pixels: a fill's antialiased edge
        constexpr int kSameColour = 6;  // per channel: within one flat fill
        int stray = 0;
        const auto median = [](std::vector<int> values) {
            std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
            return values[values.size() / 2];
        };
        for (int r = 0; r < kTokens; ++r) {
            const QPoint centre = (plot.positionOf(r + 0.5, r + 0.5) * kZoom).toPoint();
            const QRgb own = image.pixel(centre);
            // A quarter of a cell, as laid out (the viewer's differs by a few device pixels).
            const int qw = int((plot.positionOf(0, 1).x() - plot.positionOf(0, 0).x()) * kZoom / 4);
            const int qh = int((plot.positionOf(1, 0).y() - plot.positionOf(0, 0).y()) * kZoom / 4);
            std::vector<int> tops, rights;
            for (int d = -qw; d <= qw; ++d)
                tops.push_back(edgeFrom(image, centre + QPoint(d, 0), QPoint(0, -1)) + 1);
            for (int d = -qh; d <= qh; ++d)
                rights.push_back(edgeFrom(image, centre + QPoint(0, d), QPoint(1, 0)) - 1);
            const int top = median(tops);
            const int right = median(rights);
            // The other two edges border cells of about the same colour: where the layout puts
            // them, short of it by a margin.
            const int left = right - 4 * qw + 4 * kEdge;
            const int bottom = top + 4 * qh - 4 * kEdge;
            const auto check = [&](int x, int y) {
                if (channelDistance(image.pixel(x, y), own) > kSameColour && stray++ == 0)
                    *where = QStringLiteral("cell (%1, %1) at (%2, %3)").arg(r).arg(x).arg(y);
            };
            if (r > 0)  // the masked cell above
                for (int y = top + kEdge; y < top + qh; ++y)
                    for (int x = left; x <= right - kEdge; ++x)
                        check(x, y);
            if (r + 1 < kTokens)  // the masked cell to the right
                for (int y = top + kEdge; y <= bottom; ++y)
                    for (int x = right - qw; x <= right - kEdge; ++x)
                        check(x, y);
        }
        return stray;
    }

    void check(const QString& format)
    {
        const QSize size(600, 600);
        HeatmapPlot plot;
        fill(plot, size);
        const QString path = m_dir.filePath(QStringLiteral("causal.%1").arg(format));
        const Status written = ViewExporter::exportPicture(
            path, size, 1.0, [&plot](QPainter* painter, const QRectF& target) { plot.render(painter, target); });
        QVERIFY2(written, qPrintable(written ? QString() : written.error()));
        keep(path);
        plot.replotNow();  // render restores the screen's layout: the same size, so the same cells
        const QString png = path + QStringLiteral(".zoomed.png");
        const QString error = format == u"svg"
                                  ? attn::testing::runTool(QStringLiteral("rsvg-convert"),
                                        {QStringLiteral("-z"), QString::number(kZoom), QStringLiteral("-o"), png, path})
                                  : attn::testing::runTool(QStringLiteral("pdftoppm"),
                                        {QStringLiteral("-r"), QString::number(96 * kZoom),
                                         QStringLiteral("-singlefile"), QStringLiteral("-png"), path, png.chopped(4)});
        if (!error.isEmpty())
            QSKIP(qPrintable(error));
        keep(png);
        const QImage image = QImage(png).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(image.size(), size * kZoom);
        // The hatch is there: the masked cell right of (0, 0) holds the lines' grey.
        const QPointF masked = plot.positionOf(0.5, 1.5) * kZoom;
        int line_pixels = 0;
        for (int dx = -40; dx <= 40; ++dx)
            line_pixels += channelDistance(image.pixel(masked.toPoint() + QPoint(dx, 0)), qRgb(0x8c, 0x8c, 0x8c)) <= 16;
        QVERIFY2(line_pixels > 0, "no hatch line drawn in a masked cell");
        QString where;
        const int stray = inkOnUnmaskedCells(image, plot, &where);
        QVERIFY2(stray == 0,
                 qPrintable(QStringLiteral("%1 pixels of hatch on unmasked cells, first at %2").arg(stray).arg(where)));
    }

private slots:
    void svgHatchStaysInItsCells() { check(QStringLiteral("svg")); }
    void pdfHatchStaysInItsCells() { check(QStringLiteral("pdf")); }
};

REGISTER_TEST_SUITE(TestHatchVector, QApplication)
#include "test_hatch_vector.moc"
