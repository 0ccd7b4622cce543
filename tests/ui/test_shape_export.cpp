// The shape diagram as pictures (PNG, SVG, PDF) and as a widget: the classic B = 32 example reads
// the right shapes, every box can be hovered, bad paths write nothing.
//
// Set ATTENTION_PICTURES_DIR to keep the rendered pictures for a look.

#include "core/attention/AttentionWeights.h"
#include "core/pipeline/Examples.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/ToyAttention.h"
#include "ui/export/ViewExporter.h"
#include "ui/views/shapes/ShapeDiagramPainter.h"
#include "ui/views/shapes/ShapeDiagramView.h"
#include "ui/views/shapes/ShapesPanel.h"
#include "ui/views/shapes/TensorGlyph.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;
using namespace attn::testing;

namespace {

// T = 10 tokens of d_model = 512, h = 8: the sizes of the classic example.
AttentionResult classicResult()
{
    RunSettings config;  // d_model 512, 8 heads by default
    auto weights = AttentionPipeline::buildWeights(config);
    if (!weights)
        qFatal("weights: %s", qPrintable(weights.error()));
    QStringList labels;
    for (const char* word : {"the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "sleeping", "dog"})
        labels.append(QLatin1String(word));
    auto input =
        AttentionPipeline::inputFromMatrix(AttentionPipeline::inputFromSentence(labels.join(u' '), config).x, labels);
    if (!input || input->x.rows() != 10)
        qFatal("input: %s", qPrintable(input.error()));
    auto result = AttentionPipeline::run(config, std::move(input).value(), weights.value());
    if (!result)
        qFatal("run: %s", qPrintable(result.error()));
    return std::move(result).value();
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

void keep(const QString& path)
{
    const QString dir = qEnvironmentVariable("ATTENTION_PICTURES_DIR");
    if (dir.isEmpty())
        return;
    const QString target = QDir(dir).filePath(QFileInfo(path).fileName());
    QFile::remove(target);
    QFile::copy(path, target);
}

// The shape diagram through the one picture writer, as --export --view shapes does it.
Status exportShapes(const AttentionResult& result, int batch, int head, const QString& path,
                    QSize size = QSize(1200, 900))
{
    ExportRequest request;
    request.path = path;
    request.view = View::Shapes;
    request.batch = batch;
    request.head = head;
    request.size = size;
    return ViewExporter::exportView(result, request);
}

int inkedPixels(const QImage& image)
{
    int count = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            if (image.pixel(x, y) != qRgb(255, 255, 255))
                ++count;
    return count;
}

}  // namespace

class TestShapeExport : public QObject {
    Q_OBJECT

private slots:
    void classicPngSvgPdf()
    {
        const AttentionResult result = classicResult();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        const QString png = dir.filePath(QStringLiteral("shapes-classic.png"));
        QVERIFY2(exportShapes(result, 32, 3, png).ok(), "png");
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1200, 900));
        QVERIFY(inkedPixels(image) > 10000);
        keep(png);

        const QString svg = dir.filePath(QStringLiteral("shapes-classic.svg"));
        const Status svg_status = exportShapes(result, 32, 3, svg);
        QVERIFY2(svg_status.ok(), qPrintable(svg_status.error()));
        const QByteArray svg_text = readAll(svg);
        QVERIFY(svg_text.contains("<svg width=\"1200\" height=\"900\""));
        QVERIFY(svg_text.contains("font-family=\"'DejaVu Sans', sans-serif\""));
        // The shapes of the classic example, written on the diagram.
        for (const char* shape : {"(32, 10, 512)", "(32, 8, 10, 64)", "(32, 8, 10, 10)", "(512, 512)"})
            QVERIFY2(svg_text.contains(shape), shape);
        QVERIFY(svg_text.contains("262,656 parameters"));
        QVERIFY(svg_text.contains("677,642,240"));  // FLOPs per forward pass
        QVERIFY(!svg_text.contains("<image"));      // vector, no bitmap
        keep(svg);
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.defaultSize(), QSize(1200, 900));

        const QString pdf = dir.filePath(QStringLiteral("shapes-classic.pdf"));
        QVERIFY(exportShapes(result, 32, 3, pdf).ok());
        keep(pdf);
        const QByteArray pdf_bytes = readAll(pdf);
        QVERIFY(pdf_bytes.startsWith("%PDF-"));
        QVERIFY(pdf_bytes.contains("/MediaBox [0 0 900.000000 675.000000]"));  // 1200 x 900 px at 0.75 pt
        QVERIFY(pdf_bytes.size() > 5000);
        QVERIFY(!pdf_bytes.contains("/Subtype /Image"));  // vector drawing and text, no bitmap
        QVERIFY(pdf_bytes.contains("DejaVuSans"));        // the fonts are embedded

        // Only the three pictures: no temporary files left behind.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 3);
    }

    void pngSizeAndDefaultSentence()
    {
        const AttentionResult result = test::sentenceResult(512, 8);
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("shapes-sentence.png"));
        QVERIFY(exportShapes(result, 1, 0, png, QSize(800, 600)).ok());
        QCOMPARE(QImage(png).size(), QSize(800, 600));
        keep(png);
        const QString big = dir.filePath(QStringLiteral("shapes-sentence-1200.png"));
        QVERIFY(exportShapes(result, 1, 0, big).ok());
        keep(big);

        const AttentionResult causal = test::sentenceResult(96, 12, 40, true);
        const QString masked = dir.filePath(QStringLiteral("shapes-causal.svg"));
        QVERIFY(exportShapes(causal, 4, 11, masked).ok());
        keep(masked);
        const QByteArray text = readAll(masked);
        QVERIFY(text.contains("Mask"));
        QVERIFY(text.contains(QStringLiteral("(4, 12, %1, 8)").arg(causal.seqLen()).toUtf8()));
        QVERIFY(text.contains("(40, 96)"));  // Wq: d_in x d_model
        const QString masked_png = dir.filePath(QStringLiteral("shapes-causal.png"));
        QVERIFY(exportShapes(causal, 4, 11, masked_png).ok());
        keep(masked_png);

        // The toy as the Examples menu loads it: the caption names the file.
        auto example = Examples::toyFourDim(sourcePath("resources/examples"));
        QVERIFY2(example.ok(), qPrintable(example.error()));
        auto toy_result = Examples::run(example.value());
        QVERIFY(toy_result.ok());
        const QString toy = dir.filePath(QStringLiteral("shapes-toy.svg"));
        QVERIFY(exportShapes(toy_result.value(), 1, 0, toy).ok());
        const QByteArray toy_text = readAll(toy);
        QVERIFY(toy_text.contains("toy-4d.json"));
        QVERIFY(toy_text.contains("(1, 3, 4)"));
        QVERIFY(toy_text.contains("Parameters: 36"));
        QVERIFY(!toy_text.contains("Output weights Wo"));  // no output projection, no Wo box
        const QString toy_png = dir.filePath(QStringLiteral("shapes-toy.png"));
        QVERIFY(exportShapes(toy_result.value(), 1, 0, toy_png).ok());
        keep(toy_png);
    }

    void refusesBadOutputs()
    {
        const AttentionResult result = test::toyResult();
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("a-file.txt"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("x");
        }
        const struct {
            QString path;
            int batch;
            int head;
            QSize size;
            const char* expected;
        } cases[] = {
            {dir.filePath(QStringLiteral("out.bmp")), 1, 0, {1200, 900}, "unknown extension"},
            {dir.filePath(QStringLiteral("out")), 1, 0, {1200, 900}, "unknown extension"},
            {dir.filePath(QStringLiteral("missing/out.png")), 1, 0, {1200, 900}, "does not exist"},
            {file + QStringLiteral("/out.svg"), 1, 0, {1200, 900}, "not a directory"},
            {dir.filePath(QStringLiteral("out.png")), 0, 0, {1200, 900}, "--batch"},
            {dir.filePath(QStringLiteral("out.png")), 1, 1, {1200, 900}, "--head"},
            {dir.filePath(QStringLiteral("out.png")), 1, -1, {1200, 900}, "--head"},
            {dir.filePath(QStringLiteral("out.png")), 1, 0, {0, 900}, "outside 1 to 16384 pixels per side"},
            {dir.filePath(QStringLiteral("out.pdf")), 1, 0, {100000, 900}, "outside 1 to 16384 pixels per side"},
        };
        for (const auto& c : cases) {
            const Status status = exportShapes(result, c.batch, c.head, c.path, c.size);
            QVERIFY2(!status.ok(), qPrintable(c.path));
            QVERIFY2(status.error().contains(QLatin1String(c.expected)), qPrintable(status.error()));
        }
        QVERIFY(exportShapes(AttentionResult{}, 1, 0, dir.filePath(QStringLiteral("x.png")))
                    .error()
                    .contains(QStringLiteral("no computation")));
        // Nothing written but the file made above.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::Dirs | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("a-file.txt")});
    }

    // Every box is on the page, once; the mask stage is drawn only with a mask; long sequences fit.
    void layoutCoversEveryStep_data()
    {
        QTest::addColumn<qint64>("seq_len");
        QTest::addColumn<qint64>("d_model");
        QTest::addColumn<qint64>("heads");
        QTest::addColumn<bool>("masked");
        QTest::addColumn<QSize>("size");
        QTest::newRow("classic") << qint64(10) << qint64(512) << qint64(8) << false << QSize(1200, 900);
        QTest::newRow("2048 tokens, causal") << qint64(2048) << qint64(1024) << qint64(16) << true << QSize(1200, 900);
        QTest::newRow("one token, one head") << qint64(1) << qint64(4) << qint64(1) << false << QSize(1200, 900);
        QTest::newRow("small picture") << qint64(64) << qint64(768) << qint64(12) << true << QSize(640, 480);
        QTest::newRow("wide picture") << qint64(64) << qint64(768) << qint64(64) << true << QSize(2400, 900);
    }

    void layoutCoversEveryStep()
    {
        QFETCH(qint64, seq_len);
        QFETCH(qint64, d_model);
        QFETCH(qint64, heads);
        QFETCH(bool, masked);
        QFETCH(QSize, size);
        ShapeConfig config;
        config.batch = 32;
        config.seq_len = seq_len;
        config.input_dim = d_model;
        config.d_model = d_model;
        config.num_heads = heads;
        config.output_dim = d_model;
        config.masked = config.causal = masked;
        const ShapeDiagramPainter diagram(ShapeData(config), int(heads) - 1);
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        const auto hits = diagram.paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
        painter.end();

        const auto& steps = diagram.model().steps();
        QCOMPARE(hits.size(), steps.size());
        std::vector<int> seen(steps.size(), 0);
        for (const auto& hit : hits) {
            QVERIFY(hit.step >= 0 && hit.step < int(steps.size()));
            ++seen[size_t(hit.step)];
            QVERIFY2(QRectF(QPointF(0, 0), QSizeF(size)).contains(hit.rect),
                     qPrintable(QStringLiteral("%1 at %2,%3 %4x%5")
                                    .arg(steps[size_t(hit.step)].name)
                                    .arg(hit.rect.x())
                                    .arg(hit.rect.y())
                                    .arg(hit.rect.width())
                                    .arg(hit.rect.height())));
            QVERIFY(hit.rect.width() > 4 && hit.rect.height() > 4);
        }
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
        // Boxes of different steps never overlap.
        for (size_t a = 0; a < hits.size(); ++a)
            for (size_t b = a + 1; b < hits.size(); ++b)
                QVERIFY2(!hits[a].rect.intersects(hits[b].rect),
                         qPrintable(steps[size_t(hits[a].step)].name + QStringLiteral(" / ") +
                                    steps[size_t(hits[b].step)].name));
        QCOMPARE(diagram.model().step(ShapeStep::Id::Masked) != nullptr, masked);
    }

    void selectedHeadIsDrawn()
    {
        ShapeConfig config;
        config.seq_len = 10;
        config.input_dim = config.d_model = config.output_dim = 512;
        config.num_heads = 8;
        auto render = [&](int head) {
            QImage image(1200, 900, QImage::Format_RGB32);
            QPainter painter(&image);
            ShapeDiagramPainter(ShapeData(config), head).paint(painter, QRectF(0, 0, 1200, 900));
            return image;
        };
        const QImage first = render(0);
        const QImage last = render(7);
        QVERIFY(first != last);
        QCOMPARE(render(7), last);  // deterministic
        // The highlight colour is on the page.
        const QRgb highlight = TensorGlyph::faceColor(TensorGlyph::Style::Tensor, true).rgb();
        bool found = false;
        for (int y = 0; y < last.height() && !found; ++y)
            for (int x = 0; x < last.width() && !found; ++x)
                found = last.pixel(x, y) == highlight;
        QVERIFY(found);
    }

    void tooltips()
    {
        ShapeConfig config;
        config.batch = 32;
        config.seq_len = 10;
        config.input_dim = config.d_model = config.output_dim = 512;
        config.num_heads = 8;
        const ShapeDiagramPainter diagram(ShapeData(config), 2);
        const auto& steps = diagram.model().steps();
        auto index = [&](ShapeStep::Id id) {
            return int(std::find_if(steps.begin(), steps.end(), [id](const ShapeStep& s) { return s.id == id; }) -
                       steps.begin());
        };
        const QString wq = diagram.toolTip(index(ShapeStep::Id::Wq));
        QVERIFY(wq.contains(QStringLiteral("262,656")));
        QVERIFY(wq.contains(QStringLiteral("(512, 512)")));
        const QString q = diagram.toolTip(index(ShapeStep::Id::Q));
        QVERIFY(q.contains(QStringLiteral("83,886,080")));
        QVERIFY(q.contains(QStringLiteral("B·T·d_in·d_model")));
        QVERIFY(q.contains(QStringLiteral("Q = X Wq + bq")));
        const QString scores = diagram.toolTip(index(ShapeStep::Id::Scores));
        QVERIFY(scores.contains(QStringLiteral("1,638,400")));
        QVERIFY(scores.contains(QStringLiteral("(32, 8, 10, 10)")));
        QVERIFY(scores.contains(QStringLiteral("head 2 of 8")));
        QVERIFY(diagram.toolTip(-1).isEmpty());
        QVERIFY(diagram.toolTip(int(steps.size())).isEmpty());
    }

    // One repaint of the diagram at 1200 x 900 (the widget repaints on hover and on every result).
    void benchmarkPaint()
    {
        ShapeConfig config;
        config.batch = 32;
        config.seq_len = 10;
        config.input_dim = config.d_model = config.output_dim = 512;
        config.num_heads = 64;
        config.masked = config.causal = true;
        const ShapeDiagramPainter diagram(ShapeData(config), 5);
        QImage image(1200, 900, QImage::Format_ARGB32_Premultiplied);
        QBENCHMARK
        {
            QPainter painter(&image);
            QCOMPARE(diagram.paint(painter, QRectF(0, 0, 1200, 900)).size(), diagram.model().steps().size());
        }
    }

    // The widget: follows results, batch and head; hovering a box gives its tooltip.
    void widget()
    {
        ShapesPanel panel;
        panel.resize(1200, 950);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ShapeDiagramView* view = panel.view();
        QVERIFY(!view->diagram());
        QCOMPARE(view->toolTipAt(QPointF(100, 100)), QString());

        auto result = std::make_shared<const AttentionResult>(classicResult());
        panel.setResult(result);
        QVERIFY(view->diagram());
        QCOMPARE(view->diagram()->model().config().batch, 1);
        QSignalSpy batch_spy(&panel, &ShapesPanel::batchChanged);
        panel.batchSpinBox()->setValue(32);
        QCOMPARE(batch_spy.count(), 1);
        QCOMPARE(view->batch(), 32);
        QCOMPARE(view->diagram()->model().step(ShapeStep::Id::QHeads)->shapeText(), QStringLiteral("(32, 8, 10, 64)"));
        panel.setHead(5);
        QCOMPARE(view->diagram()->selectedHead(), 5);

        // Find the split-heads box by scanning the widget, then check its tooltip.
        QImage grab = view->grab().toImage();
        QVERIFY(inkedPixels(grab) > 10000);
        const auto& steps = view->diagram()->model().steps();
        bool found_weight = false, found_heads = false;
        for (int y = 0; y < view->height() && !(found_weight && found_heads); y += 6)
            for (int x = 0; x < view->width(); x += 6) {
                const int s = view->stepAt(QPointF(x, y));
                if (s < 0)
                    continue;
                if (steps[size_t(s)].id == ShapeStep::Id::Wv && !found_weight) {
                    found_weight = true;
                    QVERIFY(view->toolTipAt(QPointF(x, y)).contains(QStringLiteral("262,656")));
                }
                if (steps[size_t(s)].id == ShapeStep::Id::KHeads && !found_heads) {
                    found_heads = true;
                    QVERIFY(view->toolTipAt(QPointF(x, y)).contains(QStringLiteral("head 5 of 8")));
                }
            }
        QVERIFY(found_weight && found_heads);
        // Hovering draws a frame around the box.
        const QImage before = view->grab().toImage();
        QPointF softmax(-1, -1);
        for (int y = 0; y < view->height() && softmax.x() < 0; y += 6)
            for (int x = 0; x < view->width(); x += 6) {
                const int s = view->stepAt(QPointF(x, y));
                if (s >= 0 && steps[size_t(s)].id == ShapeStep::Id::Softmax) {
                    softmax = QPointF(x, y);
                    break;
                }
            }
        QVERIFY(softmax.x() >= 0);
        // Sent directly: the offscreen platform does not turn cursor moves into events.
        QMouseEvent move(QEvent::MouseMove, softmax, view->mapToGlobal(softmax), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QCoreApplication::sendEvent(view, &move);
        const QImage hovered = view->grab().toImage();
        QVERIFY(hovered != before);
        const QString dir = qEnvironmentVariable("ATTENTION_PICTURES_DIR");
        if (!dir.isEmpty())
            hovered.save(QDir(dir).filePath(QStringLiteral("shapes-widget-hover.png")));
        panel.setResult(nullptr);
        QVERIFY(!view->diagram());
    }
};

REGISTER_TEST_SUITE(TestShapeExport, QApplication)
#include "test_shape_export.moc"
