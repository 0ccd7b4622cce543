// The same picture in every format: each view exported as PNG, SVG and PDF, the SVG drawn by
// librsvg (rsvg-convert) and the PDF by poppler (pdftoppm), as a reader's viewer would, and
// compared with the PNG: the same size, the same layout within a few pixels, and heatmap cells
// of exactly the same colour at their centres. Both tools come from scripts/bootstrap.sh.
//
// The views of a whole model's run are walked from the view registry, drawn from gpt2-tiny.
//
// Set ATTENTION_PICTURES_DIR to keep the pictures and their rasterisations for a look.
#include "core/model/ModelSession.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/export/ViewExporter.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <vector>

#include "tests/support/ExternalTool.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"

using namespace attn;

namespace {

void keep(const QString& path)
{
    const QString dir = qEnvironmentVariable("ATTENTION_PICTURES_DIR");
    if (dir.isEmpty())
        return;
    const QString target = QDir(dir).filePath(QFileInfo(path).fileName());
    QFile::remove(target);
    QFile::copy(path, target);
}

// The SVG as librsvg draws it at its own size (1 px per pixel).
QImage drawSvg(const QString& svg, QString* error)
{
    const QString png = svg + QStringLiteral(".rsvg.png");
    *error = attn::testing::runTool(QStringLiteral("rsvg-convert"),
                 {QStringLiteral("-b"), QStringLiteral("white"), QStringLiteral("-o"), png, svg});
    keep(png);
    return QImage(png).convertToFormat(QImage::Format_RGB32);
}

// The PDF as poppler draws it at 96 dpi, where one pixel of the picture is one pixel.
QImage drawPdf(const QString& pdf, QString* error)
{
    const QString stem = pdf + QStringLiteral(".poppler");
    *error = attn::testing::runTool(QStringLiteral("pdftoppm"), {QStringLiteral("-r"), QStringLiteral("96"), QStringLiteral("-singlefile"),
                                              QStringLiteral("-png"), pdf, stem});
    keep(stem + QStringLiteral(".png"));
    return QImage(stem + QStringLiteral(".png")).convertToFormat(QImage::Format_RGB32);
}

int channelDistance(QRgb a, QRgb b)
{
    return std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
}

// The share of `a`'s ink (pixels not near white) that has no pixel of about its colour within
// `radius` pixels in `b`: text rendered by another engine differs in its antialiasing and by a
// pixel in places, a picture laid out differently (moved, scaled, other fonts) by far more.
double unmatchedInk(const QImage& a, const QImage& b, int radius)
{
    constexpr int kInk = 48;      // darker than this below white in some channel
    constexpr int kSimilar = 72;  // a colour within this of the pixel's counts as the same ink
    qint64 ink = 0, unmatched = 0;
    for (int y = 0; y < a.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        for (int x = 0; x < a.width(); ++x) {
            const QRgb pixel = line[x];
            if (channelDistance(pixel, qRgb(255, 255, 255)) < kInk)
                continue;
            ++ink;
            bool found = false;
            for (int yy = std::max(0, y - radius); yy <= std::min(b.height() - 1, y + radius) && !found; ++yy) {
                const auto* other = reinterpret_cast<const QRgb*>(b.constScanLine(yy));
                for (int xx = std::max(0, x - radius); xx <= std::min(b.width() - 1, x + radius) && !found; ++xx)
                    found = channelDistance(pixel, other[xx]) <= kSimilar;
            }
            unmatched += !found;
        }
    }
    return ink > 0 ? double(unmatched) / double(ink) : 1.0;
}

AttentionResult sentenceResult(bool causal, const QString& sentence = RunSettings::defaultSentence())
{
    RunSettings config;
    config.causal = causal;
    auto result = AttentionPipeline::run(config, sentence);
    if (!result)
        qFatal("run: %s", qPrintable(result.error()));
    return std::move(result).value();
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestPictureFormats : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // `request` exported by `exportTo` as PNG, SVG and PDF, the SVG drawn by librsvg and the PDF
    // by poppler: each the same layout as the PNG within a few pixels, with fonts a browser finds.
    void checkSamePictureInEveryFormat(const QString& name, ExportRequest request,
                                       const std::function<Status(const ExportRequest&)>& exportTo)
    {
        const QSize size = request.size;
        QImage pictures[3];
        QString error;
        const char* formats[] = {"png", "svg", "pdf"};
        for (int f = 0; f < 3; ++f) {
            request.path = m_dir.filePath(QStringLiteral("%1.%2").arg(name, QLatin1String(formats[f])));
            const Status status = exportTo(request);
            QVERIFY2(status.ok(), qPrintable(name + QStringLiteral(": ") + status.error()));
            keep(request.path);
            if (f == 0)
                pictures[0] = QImage(request.path).convertToFormat(QImage::Format_RGB32);
            else if (f == 1)
                pictures[1] = drawSvg(request.path, &error);
            else
                pictures[2] = drawPdf(request.path, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(pictures[f].size(), size);
        }
        // The same layout within a few pixels: 2 pixels of slack, and at most 2% of the ink
        // unmatched (text antialiased by another engine; a layout off by a fraction of the size
        // leaves most of it unmatched).
        for (int f = 1; f < 3; ++f) {
            const double missing = unmatchedInk(pictures[0], pictures[f], 2);
            const double extra = unmatchedInk(pictures[f], pictures[0], 2);
            QVERIFY2(missing < 0.02 && extra < 0.02, qPrintable(QStringLiteral("%1: %2 of the PNG's ink not in the %3, "
                                                                               "%4 of the %3's not in the PNG")
                                                                    .arg(name)
                                                                    .arg(missing)
                                                                    .arg(QLatin1String(formats[f]))
                                                                    .arg(extra)));
        }
        // One way for fonts: every family in the SVG ends in a generic one, so a browser never
        // falls back to a serif face.
        const QString svg = QString::fromUtf8(readAll(m_dir.filePath(name + QStringLiteral(".svg"))));
        static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
        int families = 0;
        for (auto it = family.globalMatch(svg); it.hasNext(); ++families) {
            const QString value = it.next().captured(1);
            QVERIFY2(value.endsWith(QLatin1String("sans-serif")) || value.endsWith(QLatin1String("monospace")),
                     qPrintable(value));
        }
        QVERIFY(families > 0);
        QVERIFY(svg.contains(QStringLiteral("<svg width=\"%1\" height=\"%2\"").arg(size.width()).arg(size.height())));
        // No JPEG anywhere in the PDF.
        QVERIFY(!readAll(m_dir.filePath(name + QStringLiteral(".pdf"))).contains("/DCTDecode"));
    }

private slots:
    void everyViewIsTheSamePictureInEveryFormat_data()
    {
        QTest::addColumn<int>("view");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<QString>("name");
        QTest::addRow("grid") << int(View::Grid) << false << "grid";
        QTest::addRow("grid causal") << int(View::Grid) << true << "grid-causal";
        QTest::addRow("head causal") << int(View::Head) << true << "head-causal";
        QTest::addRow("compare") << int(View::Compare) << false << "compare";
        QTest::addRow("lines") << int(View::Lines) << false << "lines";
        QTest::addRow("shapes") << int(View::Shapes) << true << "shapes";
    }
    void everyViewIsTheSamePictureInEveryFormat()
    {
        QFETCH(int, view);
        QFETCH(bool, causal);
        QFETCH(QString, name);
        const AttentionResult result = sentenceResult(causal);
        ExportRequest request;
        request.view = View(view);
        request.head = 2;
        request.compare_a = 2;
        request.compare_b = 5;
        request.size = QSize(1000, 720);
        checkSamePictureInEveryFormat(name, request,
                                      [&](const ExportRequest& r) { return ViewExporter::exportView(result, r); });
    }

    // Every view the registry draws from a whole model's run (model, rollout, lens, attribution,
    // and the model's chain of blocks), from gpt2-tiny, in the three formats.
    void everyModelViewIsTheSamePictureInEveryFormat()
    {
        auto session = ModelSession::open(testing::modelFixture(QStringLiteral("gpt2-tiny")));
        QVERIFY2(session, qPrintable(session.error()));
        const std::vector<int> ids = {464, 3797, 3332, 319, 262, 2603, 13};
        auto run = (*session)->model().forward(ids, 1, true);
        QVERIFY2(run, qPrintable(run.error()));
        const QStringList labels = (*session)->tokenLabels((*session)->tokenTexts(ids));
        int drawn = 0;
        for (const ViewRow& row : ViewRegistry::rows()) {
            for (const bool chain : {false, true}) {
                if (chain ? !row.model_picture : (!row.picture || row.source != ViewSource::ModelRun))
                    continue;
                ExportRequest request;
                request.view = row.id;
                request.model_chain = chain;
                request.size = QSize(1000, 720);
                request.metric = MetricTokens{262, 13};  // the lens tracks it, the attribution splits it
                const QString name = QStringLiteral("model-%1").arg(QLatin1String(chain ? row.model_key : row.key));
                checkSamePictureInEveryFormat(name, request, [&](const ExportRequest& r) {
                    return ViewExporter::exportRun(*run, (*session)->config(), labels, QStringLiteral("gpt2-tiny"), r,
                                                   session->get());
                });
                if (QTest::currentTestFailed())
                    return;
                ++drawn;
            }
        }
        QVERIFY(drawn >= 5);
    }

    // A heatmap's cells come out in exactly the same colour in the PNG, in the SVG drawn by
    // librsvg and in the PDF drawn by poppler, at every cell's centre, as vector rectangles up to
    // kVectorCellLimit cells and as a lossless image of whole pixels per cell beyond.
    void cellColoursAreExactInEveryFormat_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addRow("7 tokens, vector") << 7;
        QTest::addRow("64 tokens, vector") << 64;
        QTest::addRow("65 tokens, image") << 65;
    }
    void cellColoursAreExactInEveryFormat()
    {
        QFETCH(int, tokens);
        Matrix values(tokens, tokens);  // (rows, columns): every cell another value, neighbours far apart
        MaskMatrix mask = MaskMatrix::Constant(tokens, tokens, false);
        for (int row = 0; row < tokens; ++row)
            for (int column = 0; column < tokens; ++column) {
                values(row, column) = float(((row * 7 + column * 13) % 31) / 30.0);
                mask(row, column) = column > row + tokens / 2;  // some masked cells, hatched
            }
        HeatmapPlot plot;
        const QSize size(tokens > 16 ? 900 : 560, tokens > 16 ? 860 : 480);
        plot.resize(size);
        plot.setCellText(HeatmapPlot::CellText::Never);  // colours only at the centres
        plot.setSquareCells(true);
        plot.setValueRange(0.0, 1.0);
        plot.setMatrix(values, {}, {}, mask);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replotNow();
        const QString stem = m_dir.filePath(QStringLiteral("cells-%1").arg(tokens));
        QImage pictures[3];
        QString error;
        const char* formats[] = {"png", "svg", "pdf"};
        for (int f = 0; f < 3; ++f) {
            const QString path = stem + QLatin1Char('.') + QLatin1String(formats[f]);
            const Status status = ViewExporter::exportPicture(
                path, size, 1.0, [&plot](QPainter* painter, const QRectF& target) { plot.render(painter, target); });
            QVERIFY2(status.ok(), qPrintable(status.error()));
            keep(path);
            pictures[f] = f == 0 ? QImage(path).convertToFormat(QImage::Format_RGB32)
                                 : (f == 1 ? drawSvg(path, &error) : drawPdf(path, &error));
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(pictures[f].size(), size);
        }
        // Each cell's pixels on the widget, which has the picture's layout (the same size).
        std::vector<QRect> cells(size_t(tokens) * size_t(tokens));
        for (int y = 0; y < size.height(); ++y)
            for (int x = 0; x < size.width(); ++x) {
                int r = -1, c = -1;
                if (plot.cellAt(QPoint(x, y), &r, &c))
                    cells[size_t(r) * size_t(tokens) + size_t(c)] |= QRect(x, y, 1, 1);
            }
        int checked = 0;
        for (int row = 0; row < tokens; ++row)
            for (int column = 0; column < tokens; ++column) {
                if (mask(row, column))
                    continue;
                const QRect& cell = cells[size_t(row) * size_t(tokens) + size_t(column)];
                QVERIFY(!cell.isEmpty());
                const QPoint centre = cell.center();
                const QRgb png = pictures[0].pixel(centre);
                const QColor expected = ColorMaps::colorAt(ColorMaps::Map::Viridis, values(row, column));
                // The PNG within 8 levels of the exact map colour (the gradient has 256 levels)...
                QVERIFY2(channelDistance(png, expected.rgb()) <= 8,
                         qPrintable(QStringLiteral("cell (%1, %2): %3, expected %4")
                                        .arg(row)
                                        .arg(column)
                                        .arg(QColor(png).name(), expected.name())));
                // ... and the SVG and the PDF exactly the PNG's colour.
                QCOMPARE(QColor(pictures[1].pixel(centre)).name(), QColor(png).name());
                QCOMPARE(QColor(pictures[2].pixel(centre)).name(), QColor(png).name());
                ++checked;
            }
        QVERIFY(checked > tokens * tokens / 2);

        const QByteArray svg = readAll(stem + QStringLiteral(".svg"));
        const QByteArray pdf = readAll(stem + QStringLiteral(".pdf"));
        QVERIFY(!pdf.contains("/DCTDecode"));
        if (tokens * tokens <= kVectorCellLimit) {
            QVERIFY(!svg.contains("<image"));  // rectangles, sharp at any zoom
            QVERIFY(!pdf.contains("/Subtype /Image"));
        } else {
            // One image with a whole number of pixels per cell, not interpolated.
            const int k = imagePixelsPerCell(tokens, tokens);
            QVERIFY(svg.contains("<image"));
            QProcess list;
            list.start(QStandardPaths::findExecutable(QStringLiteral("pdfimages")),
                       {QStringLiteral("-list"), stem + QStringLiteral(".pdf")});
            QVERIFY(list.waitForFinished(60000));
            const QStringList lines = QString::fromLocal8Bit(list.readAllStandardOutput()).split(u'\n');
            QVERIFY2(lines.size() >= 3, qPrintable(lines.join(u'\n')));
            // page num type width height color comp bpc enc interp ...
            const QStringList fields = lines[2].simplified().split(u' ');
            QCOMPARE(fields[3].toInt(), tokens * k);
            QCOMPARE(fields[4].toInt(), tokens * k);
            QCOMPARE(fields[8], QStringLiteral("image"));  // Flate, not "jpeg"
            QCOMPARE(fields[9], QStringLiteral("no"));     // not interpolated
        }
    }

    // File › Export image in the window and --export draw the same picture.
    void windowAndCommandLineExportTheSamePicture_data()
    {
        QTest::addColumn<int>("tab");
        QTest::addColumn<int>("view");
        QTest::addRow("grid") << int(View::Grid) << int(View::Grid);
        QTest::addRow("head") << int(View::Head) << int(View::Head);
        QTest::addRow("shapes") << int(View::Shapes) << int(View::Shapes);
    }
    void windowAndCommandLineExportTheSamePicture()
    {
        QFETCH(int, tab);
        QFETCH(int, view);
        AppSettings settings(m_dir.filePath(QStringLiteral("settings-%1.ini").arg(tab)));
        MainWindow window(&settings);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.sentenceEdit()->setText(QStringLiteral("the cat sat on the mat"));
        window.controller()->waitForIdle();
        window.setCurrentView(View(tab));
        for (int i = 0; i < 5; ++i)
            QCoreApplication::processEvents();
        const QSize size(800, 600);
        const QString from_window = m_dir.filePath(QStringLiteral("window-%1.png").arg(tab));
        QVERIFY(window.exportImage(from_window, size).ok());
        ExportRequest request;
        request.path = m_dir.filePath(QStringLiteral("cli-%1.png").arg(tab));
        request.view = View(view);
        request.size = size;
        QVERIFY(ViewExporter::exportView(*window.controller()->result(), request).ok());
        keep(from_window);
        keep(request.path);
        const QImage a = QImage(from_window).convertToFormat(QImage::Format_RGB32);
        const QImage b = QImage(request.path).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(a.size(), b.size());
        QVERIFY2(a == b, qPrintable(QStringLiteral("%1 of the ink differs").arg(unmatchedInk(a, b, 0))));
    }
};

REGISTER_TEST_SUITE(TestPictureFormats, QApplication)
#include "test_picture_formats.moc"
