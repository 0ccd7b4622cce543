// What every heatmap view draws besides the weights: the colour scales (linear, per row, log,
// percentile) shared by the views and remembered, hidden keys, the top X % per row, the mean /
// max head, and the data export with what reproduces a head. Each check reads the plots.
#include "core/analysis/AttentionDisplay.h"
#include "core/io/NpyReader.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/DataExporter.h"
#include "ui/export/ExportDataDialog.h"
#include "ui/export/ViewExporter.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/lines/LinesCanvas.h"
#include "ui/views/lines/LinesView.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace attn;
using namespace attn::testing;

namespace {

std::shared_ptr<const AttentionResult> compute(bool causal, TraceDetail detail = TraceDetail::Probabilities,
                                               const QString& sentence = QStringLiteral("the cat sat on the warm mat"))
{
    RunSettings config;
    config.d_model = 32;
    config.num_heads = 4;
    config.causal = causal;
    auto result = AttentionPipeline::run(config, sentence, detail);
    return result ? std::make_shared<const AttentionResult>(std::move(result).value()) : nullptr;
}

}  // namespace

class TestHeatmapOptions : public QObject {
    Q_OBJECT

private slots:
    // Mistral's sliding window: the keys W or more before a query are hatched like the causal ones.
    void slidingWindowCellsAreMasked()
    {
        AttentionResult result;
        for (int t = 0; t < 6; ++t)
            result.input.tokens.append(Token{QString::number(t), 0, 0});
        AttentionTrace& trace = result.trace;
        trace.num_heads = 1;
        trace.head_dim = 1;
        trace.causal = true;
        trace.sliding_window = 2;
        trace.q = Matrix::Zero(6, 1);
        trace.k = Matrix::Zero(6, 1);
        trace.v = Matrix::Zero(6, 1);
        trace.probabilities = {Matrix::Zero(6, 6)};
        for (int query = 0; query < 6; ++query)
            for (int key = std::max(0, query - 1); key <= query; ++key)
                trace.probabilities[0](query, key) = query == 0 ? 1.0f : 0.5f;
        const HeatmapData data = HeatmapData::fromResult(result);
        for (int query = 0; query < 6; ++query)
            for (int key = 0; key < 6; ++key)
                QCOMPARE(bool(data.mask(query, key)), trace.isMasked(query, key));
        QVERIFY(data.mask(5, 3) && !data.mask(5, 4) && data.mask(4, 5));
    }

    void logScaleColoursByTheLogarithm()
    {
        HeatmapPlot plot;
        plot.resize(400, 400);
        Matrix values(1, 4);  // (rows, columns)
        values << 0.0f, 1e-3f, 1e-1f, 1.0f;
        plot.setMatrix(values, {}, {});
        plot.setColorMapping(HeatmapPlot::ColorMapping::Log);
        plot.setValueRange(1e-4, 1.0);
        // Four decades: 1e-3 is a quarter up, 1e-1 three quarters, 0 (no logarithm) at the bottom.
        QVERIFY(std::abs(plot.colourPosition(0, 1) - 0.25) < 1e-6);
        QVERIFY(std::abs(plot.colourPosition(0, 2) - 0.75) < 1e-6);
        QCOMPARE(plot.colourPosition(0, 0), 0.0);
        QCOMPARE(plot.colourPosition(0, 3), 1.0);
        QCOMPARE(plot.plottedCell(0, 0), double(1e-4f));  // clamped to the range, never log(0)
        QCOMPARE(plot.values()(0, 0), 0.0f);              // what hover and cell text show
        // Linear again: the plotted cells are the values.
        plot.setColorMapping(HeatmapPlot::ColorMapping::Linear);
        QCOMPARE(plot.plottedCell(0, 0), 0.0);
    }

    void perRowScalingAndPercentileInTheGridAndTheHead()
    {
        // 20 tokens: the four weights of 1 (row 0 of each causal head) are 0.5 % of the 840 cells.
        const auto result = compute(true, TraceDetail::Probabilities,
                                    QStringLiteral("one two three four five six seven eight nine ten eleven twelve "
                                                   "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
                                                   "twenty"));
        QVERIFY(result);
        HeadsGrid grid;
        grid.resize(900, 700);
        grid.setResult(result);
        grid.setColorScale(ColorScale::PerRow);
        const HeatmapPlot* plot = grid.plot(1);
        QCOMPARE(plot->colorMapping(), HeatmapPlot::ColorMapping::PerRow);
        for (int row = 0; row < plot->rowCount(); ++row)  // every row reaches the top colour
            QCOMPARE(plot->colourValues().row(row).maxCoeff(), 1.0f);
        QCOMPARE(grid.colorBar()->high(), 1.0);
        QVERIFY2(grid.colorBar()->note().contains("row"), qPrintable(grid.colorBar()->note()));

        grid.setColorScale(ColorScale::Percentile);
        const HeatmapData data = HeatmapData::fromResult(*result, ColorScale::Percentile);
        const double p99 = AttentionDisplay::percentile(result->trace.probabilities, data.mask, 99.0);
        QCOMPARE(grid.plot(0)->valueHigh(), p99);
        QVERIFY(p99 < 1.0);  // row 0 of a causal head is 1: clipped
        QVERIFY2(grid.colorBar()->note().contains("99th percentile"), qPrintable(grid.colorBar()->note()));

        grid.setColorScale(ColorScale::Log);
        QVERIFY(grid.colorBar()->logarithmic());
        QCOMPARE(grid.plot(0)->colorMapping(), HeatmapPlot::ColorMapping::Log);
        QVERIFY(std::abs(grid.plot(0)->valueLow() * 1e4 - grid.plot(0)->valueHigh()) < 1e-9);

        HeadView view;
        view.resize(700, 600);
        view.show();  // laid out: the colour-bar label is elided to the bar's length
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResult(result);
        view.setColorScale(ColorScale::Log);
        QCOMPARE(view.plot()->colorMapping(), HeatmapPlot::ColorMapping::Log);
        QVERIFY2(view.plot()->colorBarLabel().contains("log"), qPrintable(view.plot()->colorBarLabel()));
    }

    void oneScaleForEveryViewRememberedInTheSettings()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        {
            MainWindow window(&settings);
            window.show();
            window.controller()->waitForIdle();
            // Chosen in the grid's chooser: the head view, Compare's A and B and the menu follow.
            QComboBox* box = window.headsGrid()->colorScaleBox();
            box->setCurrentIndex(box->findData(int(ColorScale::Log)));
            emit box->activated(box->currentIndex());
            QCOMPARE(window.headView()->colorScale(), ColorScale::Log);
            QCOMPARE(window.viewTabs()->compareView()->figure()->colorScale(), ColorScale::Log);
            QVERIFY(window.heatmapMenu()->scaleAction(ColorScale::Log)->isChecked());
            window.viewTabs()->setCurrentView(View::Compare);
            window.controller()->waitForIdle();
            QCOMPARE(window.viewTabs()->compareView()->figure()->plotA()->colorMapping(),
                     HeatmapPlot::ColorMapping::Log);
            // And from the menu.
            window.heatmapMenu()->scaleAction(ColorScale::PerRow)->trigger();
            QCOMPARE(window.headsGrid()->colorScale(), ColorScale::PerRow);
            QCOMPARE(window.viewTabs()->compareView()->figure()->plotB()->colorMapping(),
                     HeatmapPlot::ColorMapping::PerRow);
            window.saveSettings();
        }
        QCOMPARE(settings.colorScale(), ColorScale::PerRow);
        MainWindow restored(&settings);
        QCOMPARE(restored.headsGrid()->colorScale(), ColorScale::PerRow);
        QCOMPARE(restored.headView()->colorScale(), ColorScale::PerRow);
    }

    void hiddenKeysAreMarkedAndRowsRenormalised()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        MainWindow window(&settings);
        window.show();
        window.controller()->waitForIdle();
        window.viewTabs()->setCurrentView(View::Grid);
        window.toggleHiddenKey(0);
        QCOMPARE(window.heatmapMenu()->hiddenKeys(), QList<int>{0});
        const HeatmapPlot* plot = window.headsGrid()->plot(2);
        for (int row = 0; row < plot->rowCount(); ++row) {
            QVERIFY(plot->isMasked(row, 0));  // hatched
            // Renormalised without the hidden key: a float32 row sum and a division per entry,
            // as a softmax's normalisation (rowSumBound; the sum here in double).
            const double sum = plot->values().row(row).cast<double>().sum();
            QVERIFY(std::abs(sum - 1.0) <= rowSumBound(plot->values().cols()));
        }
        QVERIFY(plot->columnLabel(0).contains(QChar(0x0336)));  // struck through
        QVERIFY(window.tokenStrip()->isHidden(0));
        // The walkthrough's numbers stay those of the computation.
        QVERIFY(window.controller()->result()->trace.probabilities[2](1, 0) > 0.0f);
        // Hiding every token is refused; showing brings the weights back.
        const int keys = window.controller()->result()->keyLen();
        for (int key = 1; key < keys; ++key)
            window.toggleHiddenKey(key);
        QCOMPARE(window.heatmapMenu()->hiddenKeys().size(), keys - 1);
        window.heatmapMenu()->setHiddenKeys({});
        QVERIFY(!window.headsGrid()->plot(2)->isMasked(1, 0));
        QCOMPARE(window.headsGrid()->plot(2)->values(), window.controller()->result()->trace.probabilities[2]);
    }

    // The walkthrough shows the numbers as computed even with keys hidden in the heatmaps (its
    // softmax runs over every key), and says which keys the heatmaps hide.
    void walkthroughNamesTheHiddenKeys()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        MainWindow window(&settings);
        window.show();
        window.controller()->waitForIdle();
        window.viewTabs()->setCurrentView(View::Walkthrough);
        WalkthroughView* walkthrough = window.viewTabs()->walkthrough();
        QVERIFY(!walkthrough->summaryText().contains("Hidden in the heatmaps"));
        window.toggleHiddenKey(0);
        QVERIFY2(walkthrough->summaryText().contains("Hidden in the heatmaps: key 0."),
                 qPrintable(walkthrough->summaryText()));
        window.heatmapMenu()->setHiddenKeys({});
        QVERIFY(!walkthrough->summaryText().contains("Hidden in the heatmaps"));
    }

    void topMassDimsTheWeakKeys()
    {
        const auto result = compute(false);
        HeadsGrid grid;
        grid.resize(900, 700);
        grid.setResult(result);
        grid.setTopMass(0.5);
        const MaskMatrix kept = AttentionDisplay::topMass(result->trace.probabilities[0], 0.5);
        for (int row = 0; row < int(kept.rows()); ++row)
            for (int column = 0; column < int(kept.cols()); ++column)
                QCOMPARE(grid.plot(0)->isDimmed(row, column), !kept(row, column));
        QVERIFY(grid.colorBar()->note().contains("top 50%"));
        grid.setTopMass(1.0);
        QVERIFY(!grid.plot(0)->hasDimmed());
    }

    // The lines view follows View › Heatmaps as the heatmaps do: a hidden key is struck through
    // and gets no line (rows renormalised without it), and top X % draws only each row's
    // strongest keys that reach that share of its weight.
    void linesViewMarksHiddenKeysAndTopMass()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        MainWindow window(&settings);
        window.show();
        window.controller()->waitForIdle();
        window.viewTabs()->setCurrentView(View::Lines);
        LinesCanvas* canvas = window.viewTabs()->linesView()->canvas();
        canvas->setHead(1);
        const int lines_before = canvas->visibleLineCount();
        QVERIFY(!canvas->isKeyStruck(2));
        window.toggleHiddenKey(2);
        QVERIFY(canvas->isKeyStruck(2));
        QVERIFY(!canvas->isKeyStruck(1));
        QVERIFY2(canvas->title().contains("key 2 hidden"), qPrintable(canvas->title()));
        const auto shown = window.viewTabs()->linesView()->canvas();
        const auto result = window.controller()->result();
        const std::vector<LinesCanvas::Line> lines = LinesCanvas::chooseLines(
            AttentionDisplay::withHiddenKeys(
                *result, canvas->isKeyStruck(2) ? std::vector<bool>{false, false, true, false, false, false, false}
                                                : std::vector<bool>{}),
            {1}, 0, LinesCanvas::kMaxLines);
        QVERIFY(!lines.empty());
        for (const LinesCanvas::Line& line : lines)
            QVERIFY(line.key != 2);
        QCOMPARE(shown->visibleLineCount(), int(lines.size()));

        window.heatmapMenu()->setHiddenKeys({});
        QCOMPARE(canvas->visibleLineCount(), lines_before);
        window.heatmapMenu()->setTopMass(0.5);
        QCOMPARE(canvas->topMass(), 0.5);
        QVERIFY2(canvas->title().contains("top 50%"), qPrintable(canvas->title()));
        const Matrix& weights = result->trace.probabilities[1];  // (T, T)
        const MaskMatrix kept = AttentionDisplay::topMass(weights, 0.5);
        const std::vector<LinesCanvas::Line> top =
            LinesCanvas::chooseLines(*result, {1}, 0, LinesCanvas::kMaxLines, 0.5);
        QVERIFY(!top.empty());
        QVERIFY(int(top.size()) < lines_before);
        for (const LinesCanvas::Line& line : top)
            QVERIFY(kept(line.query, line.key));
        QCOMPARE(canvas->visibleLineCount(), int(top.size()));
        // Each row's strongest key is always kept (and drawn: it is above the threshold or the
        // row is weak everywhere).
        const float strongest = weights.maxCoeff();
        for (int q = 0; q < weights.rows(); ++q) {
            Eigen::Index best = 0;
            weights.row(q).maxCoeff(&best);
            if (weights(q, best) >= LinesCanvas::kMinRelativeWeight * strongest)
                QVERIFY(std::any_of(top.begin(), top.end(), [&](const LinesCanvas::Line& line) {
                    return line.query == q && line.key == int(best);
                }));
        }
    }

    // --export --view lines: --top-mass and --hide-tokens change the picture as in the window.
    void linesExportFollowsTopMassAndHiddenKeys()
    {
        const auto result = compute(false);
        QTemporaryDir dir;
        ExportRequest request;
        request.view = View::Lines;
        request.head = 0;
        request.size = QSize(600, 400);
        request.path = dir.filePath("all.png");
        QVERIFY(ViewExporter::exportView(*result, request).ok());
        request.path = dir.filePath("top.png");
        request.top_mass = 0.3;
        QVERIFY(ViewExporter::exportView(*result, request).ok());
        request.path = dir.filePath("hidden.png");
        request.top_mass = 1.0;
        request.hidden_keys = {0};
        QVERIFY(ViewExporter::exportView(*result, request).ok());
        const QImage all(dir.filePath("all.png"));
        const QImage top(dir.filePath("top.png"));
        const QImage hidden(dir.filePath("hidden.png"));
        QVERIFY(!all.isNull() && !top.isNull() && !hidden.isNull());
        QVERIFY(all != top);
        QVERIFY(all != hidden);
        // Fewer lines: fewer coloured pixels between the token columns.
        const auto inked = [](const QImage& image) {
            int count = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = image.width() / 3; x < 2 * image.width() / 3; ++x)
                    count += qGray(image.pixel(x, y)) < 250;
            return count;
        };
        QVERIFY2(inked(top) < inked(all), qPrintable(QStringLiteral("%1 vs %2").arg(inked(top)).arg(inked(all))));
    }

    // A 1,100-token head is drawn in blocks of 2 x 2: each drawn cell the largest of its block's
    // weights, or (View › Heatmaps) their mean, in the grid, the head view and Compare's plots;
    // the choice is remembered.
    void reducedPixelsShowTheMaxOrTheMeanOfTheirCells()
    {
        QStringList words;
        for (int i = 0; i < 1100; ++i)
            words.append(QStringLiteral("w%1").arg(i % 89));
        RunSettings config;
        config.d_model = 8;
        config.num_heads = 2;
        auto computed = AttentionPipeline::run(config, words.join(u' '), TraceDetail::Probabilities);
        QVERIFY(computed.ok());
        const auto result = std::make_shared<const AttentionResult>(std::move(computed).value());
        const Matrix& weights = result->trace.probabilities[1];  // (1100, 1100)
        const auto block = [&weights](int row, int column) { return weights.block(2 * row, 2 * column, 2, 2); };
        HeadView view;  // not shown: reduced at once
        view.resize(900, 700);
        view.setResult(result);
        view.setHead(1);
        QCOMPARE(view.plot()->reductionFactor(), 2);
        QCOMPARE(view.plot()->values()(3, 5), block(3, 5).maxCoeff());
        view.setReduction(CellReduction::Mean);
        QCOMPARE(view.plot()->rowCount(), 550);
        // The mean is summed in double and rounded once to float.
        QCOMPARE(view.plot()->values()(3, 5), float(block(3, 5).cast<double>().mean()));
        // Top 50 % per row, kept when reduced: a block is dimmed when none of its cells is kept.
        view.setTopMass(0.5);
        const MaskMatrix kept = AttentionDisplay::topMass(weights, 0.5);  // (1100, 1100)
        QVERIFY(view.plot()->hasDimmed());
        int dimmed = 0;
        for (int row = 0; row < 550; ++row)
            for (int column = 0; column < 550; ++column) {
                const bool any_kept = kept.block(2 * row, 2 * column, 2, 2).any();
                QCOMPARE(view.plot()->isDimmed(row, column), !any_kept);
                dimmed += !any_kept;
            }
        QVERIFY(dimmed > 0 && dimmed < 550 * 550);
        HeadsGrid grid;
        grid.resize(900, 700);
        grid.setResult(result);
        grid.setReduction(CellReduction::Mean);
        QCOMPARE(grid.plot(1)->values()(7, 2), float(block(7, 2).cast<double>().mean()));
        QVERIFY2(grid.colorBar()->note().contains("mean of 2 x 2"), qPrintable(grid.colorBar()->note()));
        grid.setReduction(CellReduction::Max);
        QCOMPARE(grid.plot(1)->values()(7, 2), block(7, 2).maxCoeff());
        grid.setTopMass(0.75);
        const MaskMatrix kept_grid = AttentionDisplay::topMass(weights, 0.75);
        for (int row = 0; row < 550; row += 7)
            for (int column = 0; column < 550; ++column)
                QCOMPARE(grid.plot(1)->isDimmed(row, column), !kept_grid.block(2 * row, 2 * column, 2, 2).any());

        // Compare's three plots, on screen, reduce on worker threads: the figure shows its last
        // picture until each plot's reduction arrives.
        CompareFigure figure;
        figure.resize(1300, 600);
        figure.show();
        QVERIFY(QTest::qWaitForWindowExposed(&figure));
        QVERIFY(figure.setComparison({result, 0, QString()}, {result, 1, QString()}).ok());
        QCOMPARE(figure.plotA()->fullColumnCount(), 0);  // nothing reduced on the GUI thread
        QTRY_COMPARE(figure.plotA()->fullColumnCount(), 1100);
        QTRY_COMPARE(figure.plotB()->fullColumnCount(), 1100);
        QTRY_COMPARE(figure.plotDifference()->fullColumnCount(), 1100);
        QCOMPARE(figure.plotB()->values()(3, 5), block(3, 5).maxCoeff());
        QCOMPARE(figure.plotA()->values()(3, 5), result->trace.probabilities[0].block(6, 10, 2, 2).maxCoeff());
        figure.setReduction(CellReduction::Mean);  // the same comparison, reduced again
        QTRY_COMPARE(figure.plotB()->values()(3, 5), float(block(3, 5).cast<double>().mean()));

        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        QCOMPARE(settings.reduction(), CellReduction::Max);  // the default
        {
            MainWindow window(&settings);
            window.controller()->waitForIdle();
            QCOMPARE(window.heatmapMenu()->reduction(), CellReduction::Max);
            const QList<QAction*> actions = window.heatmapMenu()->actions();
            const auto mean = std::find_if(actions.begin(), actions.end(),
                                           [](QAction* action) { return action->text().contains("m&ean"); });
            QVERIFY(mean != actions.end());
            (*mean)->trigger();
            QCOMPARE(window.headView()->plot()->reduction(), CellReduction::Mean);
            QCOMPARE(window.headsGrid()->reduction(), CellReduction::Mean);
            QCOMPARE(window.viewTabs()->compareView()->figure()->plotA()->reduction(), CellReduction::Mean);
            QCOMPARE(window.viewTabs()->compareView()->figure()->plotDifference()->reduction(), CellReduction::Mean);
            window.saveSettings();
        }
        QCOMPARE(settings.reduction(), CellReduction::Mean);
        MainWindow restored(&settings);
        QCOMPARE(restored.heatmapMenu()->reduction(), CellReduction::Mean);
        QCOMPARE(restored.headsGrid()->reduction(), CellReduction::Mean);
    }

    void meanAndMaxHeadAfterTheLast()
    {
        const auto result = compute(true);
        HeadsGrid grid;
        grid.resize(900, 700);
        grid.setResult(result);
        QVERIFY(!grid.aggregatePlot());
        grid.setAggregate(HeadAggregate::Mean);
        QCOMPARE(grid.headCount(), result->numHeads() + 1);
        QCOMPARE(grid.aggregatePlot()->values(),
                 AttentionDisplay::fuseHeads(result->trace.probabilities, AttentionDisplay::Fusion::Mean));
        QVERIFY(grid.aggregatePlot()->isMasked(0, 1));  // the causal mask is drawn there too
        grid.setAggregate(HeadAggregate::Max);
        QCOMPARE(grid.aggregatePlot()->values(),
                 AttentionDisplay::fuseHeads(result->trace.probabilities, AttentionDisplay::Fusion::Max));
        grid.setAggregate(HeadAggregate::None);
        QCOMPARE(grid.headCount(), result->numHeads());
    }

    void dataExportWithTheTraceOfAHead()
    {
        // The engine's own scores (TraceDetail::Full) are the reference: the exported scores are
        // Q_h K_h^T / scale recomputed from the exported Q and K, -inf where masked: two float32
        // passes of the head_dim-term product and the scaling, gamma_{head_dim + 2} each of
        // sum |q_d k_d| / scale, and the JSON text (shortest float: reads back exactly).
        const auto result = compute(true, TraceDetail::Full);
        QTemporaryDir dir;
        const int head = 2;
        const QString json_path = dir.filePath("weights.json");
        QVERIFY(DataExporter::exportWeights(*result, json_path, head).ok());
        QFile file(json_path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject trace = QJsonDocument::fromJson(file.readAll()).object()["trace"].toObject();
        QCOMPARE(trace["heads"].toArray(), QJsonArray{head});
        const QJsonArray scores = trace["scores"].toArray()[0].toArray();
        const AttentionTrace& engine = result->trace;
        for (int query = 0; query < result->seqLen(); ++query)
            for (int key = 0; key < result->keyLen(); ++key) {
                const QJsonValue value = scores[query].toArray()[key];
                if (engine.isMasked(query, key)) {
                    QVERIFY(value.isNull());
                    continue;
                }
                const double expected = engine.scaledScore(head, query, key);
                const double size = (engine.qHead(head).row(query).cast<double>().cwiseAbs().array() *
                                     engine.kHead(head).row(key).cast<double>().cwiseAbs().array())
                                        .sum() /
                                    double(engine.scale);
                const double bound = 2 * gammaOf(engine.head_dim + 2) * size;
                QVERIFY2(std::abs(value.toDouble() - expected) <= bound,
                         qPrintable(QStringLiteral("%1 %2").arg(value.toDouble()).arg(expected)));
            }
        const QJsonArray q = trace["q"].toArray()[0].toArray();
        QCOMPARE(q.size(), result->seqLen());
        // Floats are written in their shortest form that reads back to the same float.
        QCOMPARE(float(q[1].toArray()[3].toDouble()), engine.qHead(head)(1, 3));
        QCOMPARE(float(trace["x"].toArray()[2].toArray()[5].toDouble()), result->input.x(2, 5));

        // NPY: the weights, and one file per array beside them.
        const QString npy_path = dir.filePath("weights.npy");
        QVERIFY(DataExporter::exportWeights(*result, npy_path, head).ok());
        auto v = NpyReader::readMatrixFile(dir.filePath("weights.v.npy"));
        QVERIFY2(v.ok(), qPrintable(v.error()));
        QCOMPARE(*v, Matrix(engine.vHead(head)));
        const QByteArray scores_npy = [&] {
            QFile f(dir.filePath("weights.scores.npy"));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(!scores_npy.isEmpty());
        // CSV: masked scores are written -inf.
        const QString csv_path = dir.filePath("weights.csv");
        QVERIFY(DataExporter::exportWeights(*result, csv_path, head).ok());
        QFile csv(dir.filePath("weights.scores.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> first_row = csv.readLine().trimmed().split(',');
        QCOMPARE(first_row.size(), result->keyLen());
        QCOMPARE(first_row[1], QByteArray("-inf"));  // causal: query 0 does not see key 1
        QVERIFY(QFile::exists(dir.filePath("weights.x.csv")) && QFile::exists(dir.filePath("weights.k.csv")));
    }

    void theExportDialogOffersTheTraceOfTheSelectedHead()
    {
        ExportDataDialog dialog(QStringLiteral("/tmp/attention.npy"), 3);
        QVERIFY(!dialog.withTrace());  // off unless asked for
        QVERIFY2(dialog.traceBox()->text().contains("head 3"), qPrintable(dialog.traceBox()->text()));
        dialog.traceBox()->setChecked(true);
        QVERIFY(dialog.withTrace());
        QCOMPARE(dialog.path(), QStringLiteral("/tmp/attention.npy"));
    }

    void exportsFollowScaleAndHiddenKeys()
    {
        const auto result = compute(false);
        QTemporaryDir dir;
        ExportRequest request;
        request.path = dir.filePath("grid.png");
        request.size = QSize(800, 600);
        request.color_scale = ColorScale::Log;
        request.hidden_keys = {0};
        QVERIFY(ViewExporter::exportView(*result, request).ok());
        request.hidden_keys = {0, 9};
        const Status outside = ViewExporter::exportView(*result, request);
        QVERIFY(!outside.ok());
        QVERIFY2(outside.error().contains("--hide-tokens") && outside.error().contains("outside"),
                 qPrintable(outside.error()));
        request.hidden_keys = {0, 1, 2, 3, 4, 5, 6};
        QVERIFY(!ViewExporter::exportView(*result, request).ok());
    }
};

REGISTER_TEST_SUITE(TestHeatmapOptions, QApplication)
#include "test_heatmap_options.moc"
