// Long inputs (QBENCHMARK, run by hand; with /usr/bin/time -v for the resident memory):
// - firstPictureInTheWindow: T = 8,192, d_model 768, 12 heads, the sentence set in the real
//   window (offscreen, 1400 x 900) until every head of the grid shows its reduced picture;
// - exportTwentyThousandTokens: T = 20,000, d_model 8, one head, the pass and a 1200 x 900 PNG of
//   the head, as `--export` makes it.
// - everyViewOfALongInput: the same 8,192-token, 12-head result in the window, every tab opened in
//   turn, then another head in the views that show one and the walkthrough scrolled down to its
//   score breakdown; prints the longest pause of the GUI thread each caused.
// - reduceOneHead: one 8,192 x 8,192 head reduced to 1,024 x 1,024 as a plot does on its worker,
//   the largest or the mean of each block, and with the top X % dimming (a cut per row).
// - exportEveryHeadOfALongInput: 8,192 tokens, 12 heads, one kept, to a 3.2 GB .npy.
// - exportTextOfALongInput: 2,364 tokens, 12 heads (67.1 million weights, just under the text
//   limit), one kept, as .npy, .csv and .json; and .json of the same input with every head kept.
//   One row per run for its peak resident memory: exportTextOfALongInput:json
// Run: QT_QPA_PLATFORM=offscreen /usr/bin/time -v build/tests/bench/long_inputs_bench firstPictureInTheWindow
//      QT_QPA_PLATFORM=offscreen /usr/bin/time -v build/tests/bench/long_inputs_bench exportTwentyThousandTokens
#include "core/base/MemoryReuse.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/DataExporter.h"
#include "ui/export/ViewExporter.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/walkthrough/ScoreBreakdownView.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QLineEdit>
#include <QScrollArea>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <functional>

using namespace attn;

namespace {

QString words(int count, int salt)
{
    QStringList list;
    list.reserve(count);
    for (int i = 0; i < count; ++i)
        list.append(QStringLiteral("w%1").arg((i + salt) % 97));
    return list.join(u' ');
}

// The window at 1400 x 900 on screen (offscreen), d_model 768 and 12 heads. False when refused.
bool showWithTwelveHeads(MainWindow& window)
{
    window.resize(1400, 900);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    RunSettings config = window.controller()->config();
    config.d_model = 768;
    config.num_heads = 12;
    if (!window.controller()->setConfig(config))
        return false;
    window.controller()->waitForIdle();
    return true;
}

}  // namespace

class LongInputsBench : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }

    void firstPictureInTheWindow()
    {
        AppSettings settings(m_dir.filePath("settings.ini"));
        MainWindow window(&settings);
        QVERIFY(showWithTwelveHeads(window));
        HeadsGrid* grid = window.headsGrid();
        int salt = 0;
        // The window's own event loop waits (it sleeps until an event comes): polling with
        // processEvents instead kept the GUI thread busy, one of the two cores of the build machine.
        const auto every_head_shown = [grid] {
            for (int head = 0; head < 12; ++head)
                if (!grid->plot(head) || grid->plot(head)->fullColumnCount() != 8192)
                    return false;
            return true;
        };
        QBENCHMARK_ONCE
        {
            window.sentenceEdit()->setText(words(8192, ++salt));
            QEventLoop loop;
            QTimer check;
            check.setInterval(5);
            QObject::connect(&check, &QTimer::timeout, &loop, [&] {
                if (every_head_shown())
                    loop.quit();
            });
            check.start();
            if (!every_head_shown())
                loop.exec();
        }
        QVERIFY2(window.controller()->result(), "refused: raise the memory budget");
        QCOMPARE(window.controller()->result()->seqLen(), 8192);
    }

    // Every tab of the window with an 8,192-token, 12-head result (the long route: one head kept,
    // the others recomputed when asked for), then a second head in each view that shows one head:
    // the longest pause of the GUI thread each caused (ticks of a 5 ms timer), as qInfo lines.
    void everyViewOfALongInput()
    {
        AppSettings settings(m_dir.filePath("settings-views.ini"));
        MainWindow window(&settings);
        QVERIFY(showWithTwelveHeads(window));
        window.sentenceEdit()->setText(words(8192, 7));
        QTRY_VERIFY_WITH_TIMEOUT(window.controller()->result() && window.controller()->result()->seqLen() == 8192,
                                 60000);
        QElapsedTimer clock;
        clock.start();
        qint64 last_tick = 0;
        qint64 longest = 0;
        qint64 longest_end = 0;
        const auto pause = [&](qint64 from, qint64 to) {
            if (to - from > longest) {
                longest = to - from;
                longest_end = to;
            }
        };
        QTimer tick;
        tick.setInterval(5);
        QObject::connect(&tick, &QTimer::timeout, &window, [&] {
            const qint64 now = clock.elapsed();
            pause(last_tick, now);
            last_tick = now;
        });
        tick.start();
        const auto settle = [&](const char* what, const std::function<void()>& step) {
            QTest::qWait(50);
            longest = 0;
            last_tick = clock.elapsed();
            const qint64 began = clock.elapsed();
            step();
            pause(began, clock.elapsed());
            QTest::qWait(4000);
            // The pause's place on the monotonic clock: `perf record -k CLOCK_MONOTONIC` then shows
            // what the GUI thread did in it with `perf script --time FROM,TO` (in seconds).
            const qint64 start = clock.msecsSinceReference();  // the clock's start, monotonic
            qInfo("%-40s longest GUI pause %lld ms (monotonic ms %lld..%lld)", what, longest,
                  start + longest_end - longest, start + longest_end);
        };
        settle("grid", [&] { window.setCurrentView(View::Grid); });
        for (const ViewRow& row : ViewRegistry::rows())
            settle(row.key, [&] { window.setCurrentView(row.id); });
        settle("head, head 5", [&] {
            window.setCurrentView(View::Head);
            window.headView()->setHead(5);
        });
        settle("walkthrough, head 7", [&] {
            window.setCurrentView(View::Walkthrough);
            window.walkthrough()->select(7, 100);
        });
        settle("walkthrough, score breakdown", [&] {
            // Scrolled down to the breakdown of the raw scores: a row for each of the 8,192 keys.
            auto* page = window.walkthrough()->findChild<QScrollArea*>();
            page->ensureWidgetVisible(window.walkthrough()->breakdown(), 0, 0);
        });
        settle("lines", [&] { window.setCurrentView(View::Lines); });
        settle("compare", [&] { window.setCurrentView(View::Compare); });
    }

    void reduceOneHead_data()
    {
        QTest::addColumn<int>("how");
        QTest::addColumn<double>("top_mass");
        QTest::newRow("max") << int(CellReduction::Max) << 1.0;
        QTest::newRow("mean") << int(CellReduction::Mean) << 1.0;
        QTest::newRow("max, top 90 %") << int(CellReduction::Max) << 0.9;
    }

    void reduceOneHead()
    {
        QFETCH(int, how);
        QFETCH(double, top_mass);
        constexpr int kTokens = 8192;
        Matrix weights = Matrix::Random(kTokens, kTokens).cwiseAbs();  // (T, T)
        for (int row = 0; row < kTokens; ++row)
            weights.row(row) /= weights.row(row).sum();
        ReducedMatrix reduced;
        QBENCHMARK
        {
            reduced = reduceCells(weights, MaskMatrix(), 8, CellReduction(how), top_mass);
        }
        QCOMPARE(reduced.values.rows(), 1024);
        QCOMPARE(reduced.dimmed.size() > 0, top_mass < 1.0);
    }

    // File › Export data of an 8,192-token, 12-head result as the window holds it (one head kept):
    // every head's weights to .npy (3.2 GB), the others recomputed a block at a time.
    void exportEveryHeadOfALongInput()
    {
        RunSettings config;
        config.d_model = 768;
        config.num_heads = 12;
        auto weights = AttentionPipeline::buildWeights(config);
        QVERIFY(weights.ok());
        const int factor = AttentionPipeline::blockFactorFor(8192, 8192, 12, 1024);
        QVERIFY(factor > 0);
        auto result = AttentionPipeline::run(config, AttentionPipeline::inputFromSentence(words(8192, 3), config),
                                             AttentionInput{}, weights.value(), TraceDetail::Probabilities, factor, 0);
        QVERIFY(result.ok());
        const QString npy = m_dir.filePath("every-head.npy");
        QBENCHMARK_ONCE
        {
            const Status written = DataExporter::exportWeights(result.value(), npy);
            QVERIFY2(written.ok(), qPrintable(written.error()));
        }
        QCOMPARE(QFileInfo(npy).size(), qint64(128) + qint64(4) * 12 * 8192 * 8192);
        QFile::remove(npy);
    }

    void exportTextOfALongInput_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<bool>("every_head_kept");
        QTest::newRow("npy") << QStringLiteral("npy") << false;
        QTest::newRow("csv") << QStringLiteral("csv") << false;
        QTest::newRow("json") << QStringLiteral("json") << false;
        QTest::newRow("json, every head kept") << QStringLiteral("json") << true;
    }

    void exportTextOfALongInput()
    {
        QFETCH(QString, suffix);
        QFETCH(bool, every_head_kept);
        constexpr int kTokens = 2364;  // 12 x 2,364^2 = 67,062,752 weights <= DataExporter::kMaxTextWeights
        RunSettings config;
        config.d_model = 768;
        config.num_heads = 12;
        auto weights = AttentionPipeline::buildWeights(config);
        QVERIFY(weights.ok());
        const int factor = every_head_kept ? 0 : AttentionPipeline::blockFactorFor(kTokens, kTokens, 12, 1024, 0);
        QVERIFY(every_head_kept || factor > 0);
        auto result = AttentionPipeline::run(config, AttentionPipeline::inputFromSentence(words(kTokens, 5), config),
                                             AttentionInput{}, weights.value(), TraceDetail::Probabilities, factor, 0);
        QVERIFY(result.ok());
        QCOMPARE(result->trace.keepsEveryHead(), every_head_kept);
        const QString path = m_dir.filePath(QStringLiteral("every-head.") + suffix);
        QBENCHMARK_ONCE
        {
            const Status written = DataExporter::exportWeights(result.value(), path);
            QVERIFY2(written.ok(), qPrintable(written.error()));
        }
        qInfo("%s: %lld bytes", qPrintable(suffix), qlonglong(QFileInfo(path).size()));
        if (suffix == u"json")
            QVERIFY(QFileInfo(path).size() <= DataExporter::jsonBytesAtMost(result.value()));
        QFile::remove(path);
    }

    void exportTwentyThousandTokens()
    {
        RunSettings config;
        config.d_model = 8;
        config.num_heads = 1;
        const QString png = m_dir.filePath("long.png");
        QBENCHMARK_ONCE
        {
            auto result = AttentionPipeline::run(config, words(20000, 0), TraceDetail::Probabilities);
            QVERIFY(result.ok());
            ExportRequest request;
            request.path = png;
            request.view = View::Head;
            request.size = QSize(1200, 900);
            const Status written = ViewExporter::exportView(result.value(), request);
            QVERIFY2(written.ok(), qPrintable(written.error()));
        }
        QVERIFY(QFileInfo(png).size() > 0);
    }
};

QTEST_MAIN(LongInputsBench)
#include "long_inputs_bench.moc"
