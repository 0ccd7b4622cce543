// The Q-K tab (QueryKeyView, QueryKeyPainter) and --view qk: the scatter is QueryKeySpace of the
// selected head's Q and K (its key/value head's K under grouped-query attention), hovering a
// mark names its token, and the picture exports as PNG, SVG and PDF.
#include "core/analysis/QueryKeySpace.h"
#include "core/pipeline/AttentionPipeline.h"
#include "tests/support/TestSuite.h"
#include "ui/export/ViewExporter.h"
#include "ui/views/qk/LabelPlacer.h"
#include "ui/views/qk/QueryKeyPainter.h"
#include "ui/views/qk/QueryKeyView.h"

#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn;

class TestQueryKeyView : public QObject {
    Q_OBJECT

    std::shared_ptr<const AttentionResult> m_result;

private slots:
    void initTestCase()
    {
        RunSettings config;
        config.d_model = 16;
        config.num_heads = 4;
        auto computed = AttentionPipeline::run(config, QStringLiteral("the cat sat on the mat"), TraceDetail::Full);
        QVERIFY(computed.ok());
        m_result = std::make_shared<const AttentionResult>(std::move(computed).value());
    }

    void scatterOfTheSelectedHead()
    {
        QueryKeyView view;
        view.resize(800, 600);
        view.setResult(m_result);
        view.setHead(2);
        const AttentionTrace& trace = m_result->trace;
        const QueryKeyPoints want = QueryKeySpace::project(Matrix(trace.qHead(2)), Matrix(trace.kHead(2)));
        QCOMPARE(view.painter().points().queries, want.queries);
        QCOMPARE(view.painter().points().keys, want.keys);
        QVERIFY(view.painter().problem().isEmpty());
        // Hover: the mark of query 2 and of key 5 name their tokens.
        const QRectF area = view.plotArea();
        QCOMPARE(view.describeAt(view.painter().position(2, false, area)),
                 QStringLiteral("query of 'sat', position 2"));
        QCOMPARE(view.describeAt(view.painter().position(5, true, area)), QStringLiteral("key of 'mat', position 5"));
        QCOMPARE(view.describeAt(area.topLeft() + QPointF(2, 2)), QString());  // the corner: nothing there
        // The bar's head chooser follows the head; without a model no layer box.
        QCOMPARE(view.headBox()->count(), 4);
        QCOMPARE(view.headBox()->currentIndex(), 2);
        QVERIFY(view.layerBox()->isHidden());
        view.setHead(9);
        QVERIFY(view.painter().problem().contains("out of range"));
    }

    // Labels beside their marks never overlap: a label goes to the first free side of its mark
    // (right, left, above, below) or is left out; the painter offers the points farthest from the
    // centre first and says in the legend how many labels it shows.
    void labelsGoToTheFirstFreeSideOrAreLeftOut()
    {
        LabelPlacer placer(QRectF(0, 0, 400, 300));
        const QPointF mark(200, 150);
        const QSizeF size(60, 14);
        std::vector<QRectF> placed;
        for (int i = 0; i < 4; ++i) {
            const std::optional<QRectF> rect = placer.place(mark, 5, size);
            QVERIFY(rect);
            placed.push_back(*rect);
        }
        QVERIFY(placed[0].left() > mark.x());    // right
        QVERIFY(placed[1].right() < mark.x());   // left
        QVERIFY(placed[2].bottom() < mark.y());  // above
        QVERIFY(placed[3].top() > mark.y());     // below
        QVERIFY(!placer.place(mark, 5, size));   // every side taken
        for (size_t i = 0; i < placed.size(); ++i)
            for (size_t j = i + 1; j < placed.size(); ++j)
                QVERIFY(!placed[i].intersects(placed[j]));
        // A mark at the area's right edge: its label goes to the left, inside.
        const std::optional<QRectF> edge = placer.place(QPointF(395, 20), 5, size);
        QVERIFY(edge && edge->right() < 395 && QRectF(0, 0, 400, 300).contains(*edge));

        // A mark kept clear just right of another: the other's label goes to its left instead of
        // covering it.
        LabelPlacer clear(QRectF(0, 0, 400, 300));
        const QPointF first(100, 100), second(130, 100);
        clear.keepClear(first, 5);
        clear.keepClear(second, 5);
        const std::optional<QRectF> beside = clear.place(first, 5, size);
        QVERIFY(beside && beside->right() < first.x());
        QVERIFY(!beside->contains(second));
    }

    void aLongInputsLabelsAreThinnedNotPiledUp()
    {
        const QRectF target(0, 0, 900, 600);
        QueryKeyPainter short_painter;
        short_painter.setResultAndHead(m_result, 1);
        const auto all = short_painter.labels(target);
        QCOMPARE(all.size(), size_t(2 * m_result->input.tokens.size()));  // six words: every label fits

        QStringList words;
        for (int i = 0; i < 400; ++i)
            words << QStringLiteral("word%1").arg(i % 97);
        RunSettings config;
        config.d_model = 16;
        config.num_heads = 2;
        auto computed = AttentionPipeline::run(config, words.join(u' '), TraceDetail::Full);
        QVERIFY(computed.ok());
        QueryKeyPainter painter;
        painter.setResultAndHead(std::make_shared<const AttentionResult>(std::move(computed).value()), 0);
        const auto placed = painter.labels(target);
        QVERIFY2(placed.size() > 20 && placed.size() < 800, qPrintable(QString::number(placed.size())));
        for (size_t i = 0; i < placed.size(); ++i) {
            QVERIFY(target.contains(placed[i].rect));
            for (size_t j = i + 1; j < placed.size(); ++j)
                QVERIFY(!placed[i].rect.intersects(placed[j].rect));
        }
        // No label covers a point: every mark's centre is outside every label.
        for (bool key : {false, true})
            for (int index = 0; index < int((key ? painter.points().keys : painter.points().queries).rows()); ++index) {
                const QPointF mark = painter.position(index, key, target);
                for (const auto& label : placed)
                    QVERIFY2(!label.rect.contains(mark), qPrintable(QStringLiteral("%1 %2").arg(index).arg(key)));
            }
        QImage picture(target.size().toSize(), QImage::Format_RGB32);
        QPainter on(&picture);
        painter.paint(on, target);  // with the legend's count; must not crash or hang
    }

    void exportsPngSvgAndPdf()
    {
        QTemporaryDir dir;
        for (const char* format : {"png", "svg", "pdf"}) {
            ExportRequest request;
            request.view = View::QueryKey;
            request.head = 1;
            request.size = QSize(900, 600);
            request.path = dir.filePath(QStringLiteral("qk.") + QLatin1String(format));
            QVERIFY(ViewExporter::exportView(*m_result, request).ok());
            QVERIFY(QFileInfo(request.path).size() > 1000);
        }
        const QImage png(dir.filePath("qk.png"));
        QCOMPARE(png.size(), QSize(900, 600));
        // Orange query discs and green key squares are drawn.
        int orange = 0, green = 0;
        for (int y = 0; y < png.height(); ++y)
            for (int x = 0; x < png.width(); ++x) {
                const QColor c = png.pixelColor(x, y);
                orange += c.red() > 200 && c.green() > 80 && c.green() < 110 && c.blue() < 30;
                green += c.red() < 40 && c.green() > 140 && c.blue() > 100 && c.blue() < 135;
            }
        QVERIFY2(orange > 50 && green > 50, qPrintable(QStringLiteral("%1 %2").arg(orange).arg(green)));
        ExportRequest request;
        request.view = View::QueryKey;
        request.head = 7;
        request.path = dir.filePath("bad.png");
        const Status bad = ViewExporter::exportView(*m_result, request);
        QVERIFY(!bad.ok() && bad.error().contains("out of range"));
        QVERIFY(!QFileInfo::exists(request.path));
    }
};

REGISTER_TEST_SUITE(TestQueryKeyView, QApplication)
#include "test_query_key_view.moc"
