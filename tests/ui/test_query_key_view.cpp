// The Q-K tab (QueryKeyView, QueryKeyPainter) and --view qk: the scatter is QueryKeySpace of the
// selected head's Q and K (its key/value head's K under grouped-query attention), hovering a
// mark names its token, and the picture exports as PNG, SVG and PDF.
#include "core/analysis/QueryKeySpace.h"
#include "core/pipeline/AttentionPipeline.h"
#include "ui/export/ViewExporter.h"
#include "ui/views/qk/QueryKeyView.h"

#include <QImage>
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
        const QRectF area(QPointF(0, 0), QSizeF(view.size()));
        QCOMPARE(view.describeAt(view.painter().position(2, false, area)), QStringLiteral("query 2 'sat'"));
        QCOMPARE(view.describeAt(view.painter().position(5, true, area)), QStringLiteral("key 5 'mat'"));
        QCOMPARE(view.describeAt(QPointF(2, 2)), QString());  // the corner: nothing there
        view.setHead(9);
        QVERIFY(view.painter().problem().contains("out of range"));
    }

    void exportsPngSvgAndPdf()
    {
        QTemporaryDir dir;
        for (const char* format : {"png", "svg", "pdf"}) {
            ExportRequest request;
            request.view = ExportView::QueryKey;
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
        request.view = ExportView::QueryKey;
        request.head = 7;
        request.path = dir.filePath("bad.png");
        const Status bad = ViewExporter::exportView(*m_result, request);
        QVERIFY(!bad.ok() && bad.error().contains("out of range"));
        QVERIFY(!QFileInfo::exists(request.path));
    }
};

QTEST_MAIN(TestQueryKeyView)
#include "test_query_key_view.moc"
