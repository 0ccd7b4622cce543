// Token labels on the heatmaps' axes follow one rule: every n-th token, n a "nice" step (1, 2,
// 5, 10, 20, 25, 50, ...), the smallest whose labels do not overlap; the same n on both axes of a
// map whose rows and columns are the same tokens, and on every map of one grid; each label at a
// multiple of n, naming the token it sits at (also on a reduced axis, where a drawn cell holds
// several tokens). In a grid of thumbnails the labels are shortened so that the maps keep most of
// their room, and a colour bar too short for two round ticks labels its two ends.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "tests/support/TestSuite.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/HeatmapLabels.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/views/heads/HeadsGrid.h"

#include <QBuffer>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QTest>

using namespace attn;

namespace {

using Labels = QList<std::pair<int, QString>>;

QStringList numberedTokens(int count)
{
    QStringList tokens;
    for (int i = 0; i < count; ++i)
        tokens << QStringLiteral("w%1").arg(i);
    return tokens;
}

// The step between the labels, or 0 when they are not evenly spaced at its multiples naming
// their tokens.
int stepOf(const Labels& labels, const QStringList& tokens)
{
    if (labels.size() < 2)
        return labels.size() == 1 ? 1 : 0;
    const int step = labels[1].first - labels[0].first;
    for (int i = 0; i < labels.size(); ++i) {
        const auto& [at, text] = labels[i];
        if (at % step != 0 || text != tokens.value(at) || (i > 0 && at - labels[i - 1].first != step))
            return 0;
    }
    return step;
}

bool isNice(int step)
{
    if (step == 1 || step == 2 || step == 5)
        return true;
    for (int decade = 10; decade <= 1000000; decade *= 10)
        for (const int nice : {decade, 2 * decade, 5 * decade / 2, 5 * decade})
            if (step == nice)
                return true;
    return false;
}

// The nice step below `step` (0 below 1).
int niceBelow(int step)
{
    int below = 0;
    for (int candidate = 1; candidate < step; ++candidate)
        if (isNice(candidate))
            below = candidate;
    return below;
}

std::shared_ptr<const AttentionResult> resultOf(int tokens)
{
    RunSettings settings;
    auto result =
        AttentionPipeline::run(settings, numberedTokens(tokens).join(QLatin1Char(' ')), TraceDetail::Probabilities);
    if (!result)
        qFatal("%s", qPrintable(result.error()));
    return std::make_shared<const AttentionResult>(std::move(result).value());
}

}  // namespace

class TestTickSteps : public QObject {
    Q_OBJECT

private slots:
    void niceSteps_data()
    {
        QTest::addColumn<double>("least");
        QTest::addColumn<int>("step");
        for (const auto& [least, step] : std::initializer_list<std::pair<double, int>>{{0.2, 1},
                                                                                       {1.0, 1},
                                                                                       {1.01, 2},
                                                                                       {2.0, 2},
                                                                                       {2.5, 5},
                                                                                       {5.0, 5},
                                                                                       {6.0, 10},
                                                                                       {11.0, 20},
                                                                                       {20.5, 25},
                                                                                       {26.0, 50},
                                                                                       {51.0, 100},
                                                                                       {93.0, 100},
                                                                                       {94.0, 100},
                                                                                       {117.0, 200},
                                                                                       {119.0, 200},
                                                                                       {201.0, 250},
                                                                                       {251.0, 500},
                                                                                       {1001.0, 2000}})
            QTest::addRow("%g", least) << least << step;
    }
    void niceSteps()
    {
        QFETCH(double, least);
        QFETCH(int, step);
        QCOMPARE(niceTickStep(least), step);
    }

    // A long head, reduced to 2 x 2 cells: one nice step on both axes, each label its token's.
    void bothAxesOfAMapShareOneStep_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<QSize>("size");
        QTest::newRow("13 tokens") << 13 << QSize(1000, 900);
        QTest::newRow("240 tokens") << 240 << QSize(700, 520);
        QTest::newRow("1500 tokens, reduced") << 1500 << QSize(1000, 900);
        QTest::newRow("3200 tokens, reduced") << 3200 << QSize(1013, 777);
    }
    void bothAxesOfAMapShareOneStep()
    {
        QFETCH(int, tokens);
        QFETCH(QSize, size);
        const QStringList labels = numberedTokens(tokens);
        Matrix values = Matrix::Constant(tokens, tokens, 1.0f / float(tokens));
        HeatmapPlot plot;
        plot.setAttribute(Qt::WA_DontShowOnScreen);
        plot.resize(size);
        plot.show();
        plot.setMatrix(values, labels, labels);
        QCoreApplication::processEvents();
        plot.replotNow();
        const int rows = stepOf(plot.shownRowLabels(), labels);
        const int columns = stepOf(plot.shownColumnLabels(), labels);
        QVERIFY2(rows > 0 && columns > 0, "labels not at the multiples of one step");
        QCOMPARE(rows, columns);
        QVERIFY2(isNice(rows), qPrintable(QString::number(rows)));
        if (tokens == 13)
            QCOMPARE(rows, 1);  // every token fits
        // The step is the smallest nice one that fits: at the nice step below it, neighbouring
        // labels would stand closer than a label needs (its glyphs' height, 13 px labels turned
        // or on the y axis; its width, about 40 px, on an x axis not turned).
        if (const int below = niceBelow(rows); below > 0) {
            const double down = (plot.positionOf(below, 0) - plot.positionOf(0, 0)).y();
            const double across = (plot.positionOf(0, below) - plot.positionOf(0, 0)).x();
            QVERIFY2(down < 15 || across < 15,
                     qPrintable(QStringLiteral("step %1 would leave %2 x %3 px").arg(below).arg(across).arg(down)));
        }
        // The same picture exported: the same rule at its size.
        const QImage image = plot.toImage(size);
        QVERIFY(!image.isNull());
    }

    // Every head of a grid labels the same tokens on both axes, whatever the window's size
    // (aligned plot rectangles used to differ by a pixel, and the steps with them).
    void everyMapOfAGridSharesTheStep_data()
    {
        QTest::addColumn<QSize>("size");
        for (const QSize size : {QSize(1200, 900), QSize(1013, 777), QSize(997, 701), QSize(1401, 899)})
            QTest::addRow("%dx%d", size.width(), size.height()) << size;
    }
    void everyMapOfAGridSharesTheStep()
    {
        QFETCH(QSize, size);
        static const auto result = resultOf(300);
        const QStringList labels = numberedTokens(300);
        HeadsGrid grid;
        grid.setAttribute(Qt::WA_DontShowOnScreen);
        grid.resize(size);
        grid.show();
        grid.setResult(result);
        QCoreApplication::processEvents();
        QVERIFY(grid.plot(7) != nullptr);
        const Labels first_rows = grid.plot(0)->shownRowLabels();
        QVERIFY(stepOf(first_rows, labels) > 0);
        for (int i = 0; grid.plot(i); ++i) {
            grid.plot(i)->replotNow();
            QCOMPARE(grid.plot(i)->shownRowLabels(), first_rows);
            QCOMPARE(grid.plot(i)->shownColumnLabels(), first_rows);
        }
    }

    // 16 heads in a small area (All heads at the window's minimum size): the token labels are
    // shortened to a sixth of a thumbnail at most, and left out of thumbnails under 120 pixels,
    // so that the map keeps most of its room.
    void thumbnailLabelsLeaveTheMapMostOfIt_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("minimum window") << QSize(580, 360);  // thumbnails of about 80 px: no labels
        QTest::addRow("1400 x 900") << QSize(1100, 680);     // about 150 px: short labels
    }
    void thumbnailLabelsLeaveTheMapMostOfIt()
    {
        QFETCH(QSize, size);
        RunSettings settings;
        settings.num_heads = 16;
        settings.d_model = 64;
        auto computed = AttentionPipeline::run(
            settings, QStringLiteral("internationalization responsibilities extraordinarily misunderstanding "
                                     "the cat sat on the mat"),
            TraceDetail::Probabilities);
        QVERIFY2(computed, qPrintable(computed.error()));
        const auto result = std::make_shared<const AttentionResult>(std::move(computed).value());
        HeadsGrid grid;
        grid.setAttribute(Qt::WA_DontShowOnScreen);
        grid.resize(size);
        grid.show();
        grid.setResult(result);
        QCoreApplication::processEvents();
        QVERIFY(grid.plot(15) != nullptr);
        for (int i = 0; grid.plot(i); ++i) {
            HeatmapPlot* plot = grid.plot(i);
            plot->replotNow();
            QFont tick_font = plot->font();
            tick_font.setPixelSize(10);  // a thumbnail's (HeatmapLabels::setCompact)
            const QFontMetrics metrics(tick_font);
            const int room = std::max(24, std::min(plot->width(), plot->height()) / 6);
            const Labels shown = plot->shownColumnLabels() + plot->shownRowLabels();
            const int side = std::min(plot->width(), plot->height());
            QCOMPARE(shown.isEmpty(), side < 120);
            for (const auto& [at, text] : shown)
                QVERIFY2(metrics.horizontalAdvance(text) <= room + 1,
                         qPrintable(QStringLiteral("head %1: '%2' in %3 px").arg(i).arg(text).arg(room)));
        }
    }

    // A colour bar too short for two round ticks (the Model tab at the window's minimum size)
    // still labels both its ends, not "0" alone.
    void aShortColourBarLabelsBothEnds()
    {
        ColorBar bar;
        bar.setRange(0.0, 0.83);
        bar.setLabel(QStringLiteral("weight"));
        bar.setMaskLegendVisible(true);
        QBuffer svg;
        svg.open(QIODevice::WriteOnly);
        QSvgGenerator generator;
        generator.setOutputDevice(&svg);
        generator.setSize(QSize(80, 80));
        QPainter painter(&generator);
        bar.paintTo(&painter, QRectF(0, 0, 80, 80));  // a bar of about 20 px
        painter.end();
        const QString text = QString::fromUtf8(svg.data());
        static const QRegularExpression low(QStringLiteral(">\\s*0\\s*<")), high(QStringLiteral(">\\s*0\\.83\\s*<"));
        QVERIFY2(text.contains(low) && text.contains(high), qPrintable(text.right(1500)));
    }
};

REGISTER_TEST_SUITE(TestTickSteps, QApplication)
#include "test_tick_steps.moc"
