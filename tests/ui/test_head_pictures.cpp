// Long inputs' pictures: the engine's block-wise route (AttentionOptions::block_factor) keeps one
// head's weights and reduces every head as it goes. Its pictures must be exactly what a plot draws
// from the full weights (reduceCells with the views' mask, HeatmapData), its other heads
// recomputed bit for bit, and everything else of the pass (head outputs, output) unchanged.
#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/HeadMetrics.h"
#include "core/attention/AttentionEngine.h"
#include "core/attention/HeadAttention.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/DataExporter.h"
#include "ui/export/ViewExporter.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"

#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

using namespace attn;
using namespace attn::testing;

namespace {

struct Case {
    int tokens = 0;
    int heads = 0;
    int kv_heads = 0;  // 0: as many as heads
    bool causal = false;
    int window = 0;
    std::vector<int> padded;
    int factor = 1;
    int kept = 0;
};

AttentionWeights weightsFor(const Case& c, int d_model)
{
    auto weights = AttentionWeights::random(16, d_model, c.heads, c.kv_heads > 0 ? c.kv_heads : c.heads, 7);
    Q_ASSERT(weights.ok());
    return std::move(weights).value();
}

AttentionOptions optionsFor(const Case& c)
{
    AttentionOptions options;
    options.detail = TraceDetail::Probabilities;
    options.causal = c.causal;
    options.sliding_window = c.window;
    if (!c.padded.empty()) {
        options.key_padding.assign(size_t(c.tokens), false);
        for (int key : c.padded)
            options.key_padding[size_t(key)] = true;
    }
    return options;
}

// A result around a trace, for HeatmapData's mask (the views' mask of every cell).
AttentionResult resultOf(AttentionTrace trace)
{
    AttentionResult result;
    for (int i = 0; i < trace.queryLength(); ++i)
        result.input.tokens.append({QString::number(i), 0, 0});
    result.trace = std::move(trace);
    return result;
}

QString words(int count)
{
    QStringList list;
    for (int i = 0; i < count; ++i)
        list.append(QStringLiteral("w%1").arg((i * 7) % 53));
    return list.join(u' ');
}

// 1,100 tokens (drawn in blocks of 2), 4 causal heads typed into the window, shown in the grid;
// the route's threshold lowered so that this small input takes it. False when refused.
bool typeALongInput(MainWindow& window)
{
    AttentionController* controller = window.controller();
    controller->setLongRouteBytes(0);
    RunSettings config = controller->config();
    config.d_model = 16;
    config.num_heads = 4;
    config.causal = true;
    if (!controller->setConfig(config))
        return false;
    window.viewTabs()->setCurrentView(View::Grid);
    window.sentenceEdit()->setText(words(1100));
    controller->waitForIdle();
    return true;
}

// Every head of `full` reduced as a plot reduces it, against what `plot_of(head)` shows.
template <typename PlotOf>
void compareReduced(const AttentionResult& full, int heads, CellReduction how, PlotOf plot_of)
{
    const HeatmapData data = HeatmapData::fromResult(full);
    for (int head = 0; head < heads; ++head) {
        const ReducedMatrix expected = reduceCells(full.trace.probabilities[size_t(head)], data.mask,
                                                   reductionFactor(full.seqLen(), full.keyLen(), 1024), how);
        HeatmapPlot* plot = plot_of(head);
        // (the heads that need their weights are recomputed and reduced on a worker)
        QTRY_VERIFY2_WITH_TIMEOUT(plot->fullColumnCount() == full.keyLen() && plot->values() == expected.values,
                                  qPrintable(QStringLiteral("head %1").arg(head)), 60000);
        QCOMPARE(plot->mask(), expected.mask);
    }
}

}  // namespace

class TestHeadPictures : public QObject {
    Q_OBJECT

private slots:
    void blockWiseRouteEqualsTheFullWeights_data()
    {
        QTest::addColumn<int>("index");
        QTest::newRow("8 x 8 blocks, 2 heads") << 0;
        QTest::newRow("causal, blocks of 3, last ones partial") << 1;
        QTest::newRow("sliding window and padded keys, blocks of 5") << 2;
        QTest::newRow("grouped-query, head 3 kept, blocks of 20") << 3;
        QTest::newRow("blocks of 70 (more than 64 queries)") << 4;
    }

    void blockWiseRouteEqualsTheFullWeights()
    {
        QFETCH(int, index);
        const Case cases[] = {
            {300, 2, 0, false, 0, {}, 8, 0},
            {301, 3, 0, true, 0, {}, 3, 1},
            {257, 2, 0, true, 17, {0, 5, 200}, 5, 1},
            {410, 4, 2, false, 0, {3}, 20, 3},
            {333, 2, 0, true, 0, {}, 70, 0},
        };
        const Case& c = cases[index];
        const int d_model = 8 * c.heads;
        const AttentionWeights weights = weightsFor(c, d_model);
        QVERIFY(weights.validate().ok());
        const Matrix x = Matrix::Random(c.tokens, 16);  // (T, d_in)

        const AttentionTrace full = AttentionEngine::forward(x, weights, optionsFor(c)).value();
        AttentionOptions long_options = optionsFor(c);
        long_options.block_factor = c.factor;
        long_options.kept_head = c.kept;
        const AttentionTrace blocked = AttentionEngine::forward(x, weights, long_options).value();

        QCOMPARE(blocked.kept_head, c.kept);
        QVERIFY(!blocked.keepsEveryHead());
        QCOMPARE(int(blocked.cell_blocks.size()), c.heads);
        QCOMPARE(blocked.scores.size(), size_t(0));
        QVERIFY(blocked.probabilities[size_t(c.kept)].size() > 0);
        for (int head = 0; head < c.heads; ++head)
            if (head != c.kept)
                QCOMPARE(blocked.probabilities[size_t(head)].size(), Eigen::Index(0));

        // The rest of the pass: the same numbers in the same blocks of 64 queries. Other blocks
        // (a factor that does not divide 64) give a causal block's product with V another inner
        // length, the keys up to its last query: the same sum to float rounding.
        QCOMPARE(blocked.q, full.q);
        if (blocked.query_block == 64 || !c.causal) {
            QCOMPARE(blocked.concat, full.concat);
            QCOMPARE(blocked.output, full.output);
        } else {
            // The same Q, K and V; each head's softmax and P V computed twice: concat within
            // weightedValuesBound of the probabilities' bound (sameScoresProbabilityBound), the
            // output within productBound of concat's.
            QCOMPARE(blocked.k, full.k);
            QCOMPARE(blocked.v, full.v);
            DoubleMatrix concat_bound(full.concat.rows(), full.concat.cols());
            for (int head = 0; head < c.heads; ++head) {
                const Matrix& p_full = full.probabilities[size_t(head)];
                const Matrix p_blocked = *blocked.headProbabilities(head);
                const DoubleMatrix larger = p_full.cast<double>().cwiseMax(p_blocked.cast<double>());
                const DoubleMatrix dp = sameScoresProbabilityBound(full, head, p_blocked, p_full);
                const DoubleMatrix v = full.vHead(head).cast<double>();
                concat_bound.middleCols(head * full.head_dim, full.head_dim) =
                    weightedValuesBound(larger, dp, v, DoubleMatrix::Zero(v.rows(), v.cols()), 2);
            }
            const DoubleMatrix output_bound =
                weights.hasOutputProjection()
                    ? productBound(full.concat, concat_bound, weights.out_proj, weights.out_bias, 2).bound
                    : concat_bound;
            const QString concat_beyond = beyondBound("concat", blocked.concat, full.concat, concat_bound);
            QVERIFY2(concat_beyond.isEmpty(), qPrintable(concat_beyond));
            const QString output_beyond = beyondBound("output", blocked.output, full.output, output_bound);
            QVERIFY2(output_beyond.isEmpty(), qPrintable(output_beyond));
        }

        // Each head as the pass computed it: recomputed (or the kept one), in the pass's blocks. With
        // blocks of 64 queries (the ordinary pass's), or without the causal mask (each block then
        // multiplies every key), it is the ordinary pass's bit for bit; a causal block of another
        // height multiplies another number of keys (up to its last query), which changes the
        // scores' rounding.
        const bool same_blocks = blocked.query_block == 64 || !c.causal;
        const HeatmapData data = HeatmapData::fromResult(resultOf(full));
        for (int head = 0; head < c.heads; ++head) {
            const std::shared_ptr<const Matrix> weights_h = blocked.headProbabilities(head);
            QVERIFY(weights_h);
            const Matrix& expected = *weights_h;  // (T, T)
            const float off = (expected - full.probabilities[size_t(head)]).cwiseAbs().maxCoeff();
            if (same_blocks)
                QCOMPARE(off, 0.0f);
            else {  // the same Q and K (compared above), the softmax computed twice
                const QString beyond =
                    beyondBound("probabilities", expected, full.probabilities[size_t(head)],
                                sameScoresProbabilityBound(full, head, expected, full.probabilities[size_t(head)]));
                QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
            }
            // Exactly the plot's reduction of the full weights, with the views' mask.
            const ReducedMatrix max = reduceCells(expected, data.mask, c.factor, CellReduction::Max);
            const ReducedMatrix mean = reduceCells(expected, data.mask, c.factor, CellReduction::Mean);
            const CellBlocks& picture = blocked.cell_blocks[size_t(head)];
            QCOMPARE(picture.factor, c.factor);
            QVERIFY(picture.max == max.values);
            QVERIFY(picture.mean == mean.values);
            QCOMPARE(picture.hidden, max.mask);
            QCOMPARE(picture.hidden.size() > 0, c.causal);  // whole blocks above the diagonal
            QCOMPARE(blocked.row_max[size_t(head)], RowVector(expected.rowwise().maxCoeff().transpose()));
        }
        // The kept head recomputed equals the one stored.
        QVERIFY(recomputeHeadProbabilities(blocked, c.kept) == blocked.probabilities[size_t(c.kept)]);
    }

    void blocksAreTheMaxAndMeanOfTheirCells()
    {
        // Against a plain loop over each block's cells (row by row, in double, as documented),
        // with and without a mask, whole groups of eight blocks and the blocks after them.
        for (int f : {1, 2, 3, 8, 20}) {
            const int rows = 45;
            const int columns = 8 * 8 * f + 3 * f + 1;
            const Matrix values = Matrix::Random(rows, columns).cwiseAbs();
            MaskMatrix mask = MaskMatrix::Constant(rows, columns, false);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < columns; ++c)
                    mask(r, c) = (r * 7 + c * 3) % 5 == 0 || c < f;  // the first block column all masked
            const MaskMatrix* none = nullptr;
            for (const MaskMatrix* hides : {none, static_cast<const MaskMatrix*>(&mask)}) {
                const int drawn_rows = (rows + f - 1) / f;
                const int drawn_columns = (columns + f - 1) / f;
                CellBlocks blocks = CellBlocks::sized(rows, columns, f);
                BlockRowReducer reducer;
                for (int block_row = 0; block_row < drawn_rows; ++block_row) {
                    const int first = block_row * f;
                    reducer.reduce(values.row(first).data(), values.outerStride(),
                                   hides ? hides->row(first).data() : nullptr, mask.outerStride(),
                                   std::min(f, rows - first), columns, f, blocks.max.row(block_row).data(),
                                   blocks.mean.row(block_row).data(), blocks.hidden.row(block_row).data());
                }
                for (int br = 0; br < drawn_rows; ++br)
                    for (int bc = 0; bc < drawn_columns; ++bc) {
                        double sum = 0.0;
                        float largest = -std::numeric_limits<float>::infinity();
                        int count = 0;
                        for (int r = br * f; r < std::min(rows, (br + 1) * f); ++r) {
                            double line = 0.0;
                            for (int c = bc * f; c < std::min(columns, (bc + 1) * f); ++c) {
                                if (hides && (*hides)(r, c))
                                    continue;
                                line += values(r, c);
                                largest = std::max(largest, values(r, c));
                                ++count;
                            }
                            sum += line;
                        }
                        QCOMPARE(blocks.hidden(br, bc), count == 0);
                        QCOMPARE(blocks.max(br, bc), count == 0 ? 0.0f : largest);
                        QCOMPARE(blocks.mean(br, bc), count == 0 ? 0.0f : float(sum / count));
                    }
            }
        }
    }

    void recomputedHeadIsKeptUntilAnotherIsAsked()
    {
        const Case c{130, 3, 0, false, 0, {}, 2, 0};
        const Matrix x = Matrix::Random(c.tokens, 16);
        AttentionOptions options = optionsFor(c);
        options.block_factor = 2;
        const AttentionTrace trace = AttentionEngine::forward(x, weightsFor(c, 24), options).value();
        const auto first = trace.headProbabilities(1);
        QCOMPARE(trace.headProbabilities(1).get(), first.get());  // not recomputed again
        const auto second = trace.headProbabilities(2);
        QVERIFY(second.get() != first.get());
        QVERIFY(*trace.headProbabilities(1) == *first);  // again, bit for bit
        QCOMPARE(trace.headProbabilities(0).get(), &trace.probabilities[0]);  // the kept one is the stored matrix
        QVERIFY(!trace.headProbabilities(3));
        QVERIFY(!trace.headProbabilities(-1));
        const AttentionTrace copy = trace;  // a copy (hidden keys shown) shares q, k, v and the recomputed head
        QVERIFY(*copy.headProbabilities(2) == *second);
    }

    void refusesABadRequest()
    {
        const Case c{10, 2, 0, false, 0, {}, 2, 0};
        const Matrix x = Matrix::Random(c.tokens, 16);
        AttentionOptions options = optionsFor(c);
        options.block_factor = 2;
        options.kept_head = 2;
        auto refused = AttentionEngine::forward(x, weightsFor(c, 16), options);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error(), QStringLiteral("head 2 to keep is outside the 2 heads (0 to 1)"));
        options.kept_head = 0;
        options.block_factor = -1;
        refused = AttentionEngine::forward(x, weightsFor(c, 16), options);
        QVERIFY(!refused.ok());
        QVERIFY(refused.error().contains(QStringLiteral("must not be negative")));
    }

    void theWindowShowsALongInputFromItsPictures()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        MainWindow window(&settings);
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        AttentionController* controller = window.controller();
        QVERIFY(typeALongInput(window));
        auto shown = controller->result();
        QVERIFY(shown);
        QCOMPARE(shown->seqLen(), 1100);
        QVERIFY(!shown->trace.keepsEveryHead());
        QCOMPARE(shown->trace.kept_head, 0);
        QVERIFY(shown->trace.hasCellBlocks());

        // The same pass keeping every head, as before the route existed.
        auto full = AttentionPipeline::run(shown->config, shown->input, AttentionInput{}, *controller->weights(),
                                           TraceDetail::Probabilities);
        QVERIFY(full.ok());
        QCOMPARE(full->trace.output, shown->trace.output);
        HeadsGrid* grid = window.headsGrid();
        compareReduced(full.value(), 4, CellReduction::Max, [grid](int head) { return grid->plot(head); });
        window.viewTabs()->setReduction(CellReduction::Mean);
        compareReduced(full.value(), 4, CellReduction::Mean, [grid](int head) { return grid->plot(head); });
        window.viewTabs()->setReduction(CellReduction::Max);

        // Hidden keys need the weights: each head recomputed, hidden, reduced.
        window.viewTabs()->setHiddenKeys({3, 500});
        const AttentionResult hidden =
            AttentionDisplay::withHiddenKeys(full.value(), AttentionDisplay::shownHiddenKeys({3, 500}, 1100));
        compareReduced(hidden, 4, CellReduction::Max, [grid](int head) { return grid->plot(head); });
        window.viewTabs()->setHiddenKeys({});
        compareReduced(full.value(), 4, CellReduction::Max, [grid](int head) { return grid->plot(head); });

        // The top 90 % per row, dimmed by block: each head recomputed and reduced with its cut.
        const HeatmapData full_data = HeatmapData::fromResult(full.value());
        window.viewTabs()->setTopMass(0.9);
        for (int head = 0; head < 4; ++head) {
            const ReducedMatrix expected =
                reduceCells(full->trace.probabilities[size_t(head)], full_data.mask, 2, CellReduction::Max, 0.9);
            HeatmapPlot* plot = grid->plot(head);
            QTRY_VERIFY_WITH_TIMEOUT(plot->values() == expected.values && plot->hasDimmed(), 60000);
            for (int r = 0; r < expected.dimmed.rows(); ++r)
                for (int c = 0; c < expected.dimmed.cols(); ++c)
                    QCOMPARE(plot->isDimmed(r, c), bool(expected.dimmed(r, c)));
        }
        window.viewTabs()->setTopMass(1.0);
        compareReduced(full.value(), 4, CellReduction::Max, [grid](int head) { return grid->plot(head); });

        // The largest weight of any head, as one more picture.
        window.viewTabs()->setAggregate(HeadAggregate::Max);
        QTRY_VERIFY(grid->aggregatePlot());
        const ReducedMatrix fused = reduceCells(AttentionDisplay::fuseHeads(full->trace.probabilities, AttentionDisplay::Fusion::Max),
                                                full_data.mask, 2, CellReduction::Max);
        QTRY_VERIFY_WITH_TIMEOUT(grid->aggregatePlot()->values() == fused.values, 60000);
        window.viewTabs()->setAggregate(HeadAggregate::None);

        // A head opened large is recomputed, and kept by the next computation.
        window.viewTabs()->openHead(2);
        HeatmapPlot* large = window.viewTabs()->headView()->plot();
        const HeatmapData data = HeatmapData::fromResult(full.value());
        const ReducedMatrix head2 = reduceCells(full->trace.probabilities[2], data.mask, 2, CellReduction::Max);
        QTRY_VERIFY(large->fullColumnCount() == 1100 && large->values() == head2.values);
        QCOMPARE(controller->keptHead(), 2);
        window.sentenceEdit()->setText(words(1100) + QStringLiteral(" w1"));
        controller->waitForIdle();
        QCOMPARE(controller->result()->trace.kept_head, 2);
        window.sentenceEdit()->setText(words(1100));
        controller->waitForIdle();
        shown = controller->result();

        // Compare's metrics, each head recomputed in turn.
        const std::vector<HeadMetric> expected = computeHeadMetrics(full->trace.probabilities);
        for (int head = 0; head < 4; ++head) {
            const HeadMetric metric = computeHeadMetrics(*AttentionDisplay::headProbabilities(*shown, head));
            QCOMPARE(metric.entropy, expected[size_t(head)].entropy);
        }

        // Every head's weights exported from such a result, recomputed a block at a time: the
        // files of the same weights kept whole, the JSON document too.
        const AttentionResult& computed = *shown;
        AttentionResult whole = computed;  // the same result with every head's matrix
        for (int head = 0; head < 4; ++head)
            whole.trace.probabilities[size_t(head)] = *computed.trace.headProbabilities(head);
        whole.trace.kept_head = -1;
        const QString npy = dir.filePath("weights.npy");
        QSignalSpy exported_spy(&window, &MainWindow::dataExported);
        window.startDataExport(npy);  // File › Export data: on a worker
        QVERIFY(!window.actions()->get(ActionId::ExportData)->isEnabled());
        QVERIFY(exported_spy.wait(30000));
        QCOMPARE(exported_spy.first().at(1).toString(), QString());
        QVERIFY(window.actions()->get(ActionId::ExportData)->isEnabled());
        QFile npy_file(npy);
        QVERIFY(npy_file.open(QIODevice::ReadOnly));
        QCOMPARE(npy_file.readAll(), DataExporter::toNpy(whole));
        const QString csv = dir.filePath("weights.csv");
        QVERIFY(window.exportData(csv, 2).ok());
        QFile csv_file(csv);
        QVERIFY(csv_file.open(QIODevice::ReadOnly));
        QCOMPARE(csv_file.readAll(), DataExporter::toCsv(whole));
        QVERIFY(QFile::exists(dir.filePath("weights.scores.csv")));  // head 2's trace beside it
        const QString json = dir.filePath("weights.json");
        const Status exported = window.exportData(json);
        QVERIFY2(exported.ok(), qPrintable(exported.error()));
        QFile json_file(json);
        QVERIFY(json_file.open(QIODevice::ReadOnly));
        QVERIFY(json_file.readAll() == DataExporter::toJson(whole));
    }

    // The percentile scale of a long input: computed on a worker from every head recomputed
    // (the grid says so meanwhile, 0 .. largest), then exactly the percentile of the heads'
    // matrices; also with a key hidden. An export of that scale computes it before drawing.
    void thePercentileOfALongInputArrivesFromAWorker()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath("settings.ini"));
        MainWindow window(&settings);
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        AttentionController* controller = window.controller();
        QVERIFY(typeALongInput(window));
        const auto shown = controller->result();
        QVERIFY(shown && !shown->trace.keepsEveryHead());
        const auto percentileOf = [](const AttentionResult& result) {
            std::vector<Matrix> heads;
            for (int head = 0; head < result.numHeads(); ++head)
                heads.push_back(*AttentionDisplay::headProbabilities(result, head));
            return AttentionDisplay::percentile(heads, HeatmapData::fromResult(result).mask, ColorScales::kPercentile);
        };
        HeadsGrid* grid = window.headsGrid();
        window.viewTabs()->setColorScale(ColorScale::Percentile);
        QVERIFY2(grid->colorBar()->note().contains(QStringLiteral("percentile being computed: 0 .. largest")) ||
                     shown->derived->percentile_top.has_value(),
                 qPrintable(grid->colorBar()->note()));
        const double expected = percentileOf(*shown);
        QTRY_COMPARE_WITH_TIMEOUT(grid->plot(0)->valueHigh(), expected, 30000);
        QVERIFY2(grid->colorBar()->note().contains(QStringLiteral("clipped at the 99th percentile")),
                 qPrintable(grid->colorBar()->note()));
        window.setCurrentView(View::Head);  // brought up to date as it is shown: the same range
        QTRY_COMPARE(window.headView()->plot()->valueHigh(), expected);
        window.setCurrentView(View::Grid);

        window.viewTabs()->setHiddenKeys({2});
        const AttentionResult hidden =
            AttentionDisplay::withHiddenKeys(*shown, AttentionDisplay::shownHiddenKeys({2}, 1100));
        QTRY_COMPARE_WITH_TIMEOUT(grid->plot(0)->valueHigh(), percentileOf(hidden), 30000);

        ExportRequest request;
        request.path = dir.filePath("percentile.png");
        request.view = View::Grid;
        request.size = QSize(800, 600);
        request.color_scale = ColorScale::Percentile;
        AttentionResult fresh = *shown;
        fresh.derived = std::make_shared<AttentionResult::Derived>();  // nothing computed yet
        QVERIFY(!fresh.derived->percentile_top);
        QVERIFY(ViewExporter::exportView(fresh, request).ok());
        QCOMPARE(*fresh.derived->percentile_top, expected);
    }

    void everyHeadKeptWithoutPictures()
    {
        const Case c{40, 2, 0, true, 0, {}, 1, 0};
        const Matrix x = Matrix::Random(c.tokens, 16);
        const AttentionTrace trace = AttentionEngine::forward(x, weightsFor(c, 16), optionsFor(c)).value();
        QVERIFY(trace.keepsEveryHead());
        QVERIFY(!trace.hasCellBlocks());
        QCOMPARE(trace.headProbabilities(1).get(), &trace.probabilities[1]);
    }
};

REGISTER_TEST_SUITE(TestHeadPictures, QApplication)
#include "test_head_pictures.moc"
