// The compare view's pieces: the difference cell by cell, side B under other settings, the
// head metrics model and table, and the signals that pick heads.
#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/CompareData.h"
#include "core/analysis/HeadTables.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "tests/support/DefaultResult.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/LongInput.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/compare/HeadMetricsItemModel.h"
#include "ui/views/compare/HeadMetricsTable.h"
#include "ui/views/compare/HeadSimilarityView.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTest>

#include <numbers>

using namespace attn;
using namespace attn::testing;

namespace {

// Clicks the cell (row, column) of a HeatmapPlot as a user would: on its QCustomPlot child, at a
// position the plot itself maps to that cell.
bool clickCell(HeatmapPlot* plot, int row, int column)
{
    plot->replotNow();
    QWidget* canvas = plot->findChild<QWidget*>();
    if (!canvas)
        return false;
    for (int y = 0; y < canvas->height(); y += 2)
        for (int x = 0; x < canvas->width(); x += 2) {
            int r = -1, c = -1;
            if (plot->cellAt(QPoint(x, y), &r, &c) && r == row && c == column) {
                QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(x, y));
                return true;
            }
        }
    return false;
}

// Side B is computed by the controller's worker, as the window connects it.
void connectVariants(CompareView& view, AttentionController& controller)
{
    QObject::connect(&view, &CompareView::variantRequested, &controller, &AttentionController::requestVariant);
    QObject::connect(&controller, &AttentionController::variantReady, &view, &CompareView::showVariant);
    QObject::connect(&controller, &AttentionController::variantFailed, &view, &CompareView::showVariantError);
}

}  // namespace

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    // ---- CompareData ----------------------------------------------------------------------

    void differenceCellByCell()
    {
        Matrix a(2, 3), b(2, 3);
        a << 0.5f, 0.25f, 0.25f, 0.0f, 1.0f, 0.0f;
        b << 0.1f, 0.2f, 0.7f, 0.6f, 0.3f, 0.1f;
        auto comparison = CompareData::compare(a, b);
        QVERIFY(comparison.ok());
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) {
                QCOMPARE(comparison->difference(i, j), a(i, j) - b(i, j));
                QCOMPARE(comparison->a(i, j), a(i, j));
                QCOMPARE(comparison->b(i, j), b(i, j));
            }
        QCOMPARE(comparison->shared_min, 0.0f);
        QCOMPARE(comparison->shared_max, 1.0f);
        QCOMPARE(comparison->difference_limit, 0.7f);  // |1.0 - 0.3|, the largest difference
    }

    void differenceOfRealHeads()
    {
        const auto result = defaultResult();
        const Matrix& a = result->trace.probabilities[2];
        const Matrix& b = result->trace.probabilities[5];
        auto comparison = CompareData::compare(a, b);
        QVERIFY(comparison.ok());
        for (int i = 0; i < a.rows(); ++i)
            for (int j = 0; j < a.cols(); ++j)
                QCOMPARE(comparison->difference(i, j), a(i, j) - b(i, j));
        QCOMPARE(comparison->shared_max, std::max(a.maxCoeff(), b.maxCoeff()));
        QCOMPARE(comparison->difference_limit, (a - b).cwiseAbs().maxCoeff());
        QVERIFY(comparison->divergence > 0.0 && comparison->divergence <= std::numbers::ln2);
        // The same head twice: a zero difference on a non-empty range, divergence exactly 0.
        auto same = CompareData::compare(a, a);
        QVERIFY(same.ok());
        QVERIFY(same->difference.isZero(0.0f));
        QCOMPARE(same->difference_limit, 1.0f);
        QCOMPARE(same->divergence, 0.0);
    }

    void differentShapesAreRefused()
    {
        auto comparison = CompareData::compare(Matrix::Identity(3, 3), Matrix::Identity(4, 4));
        QVERIFY(!comparison.ok());
        QVERIFY2(comparison.error().contains("3 x 3") && comparison.error().contains("4 x 4"),
                 qPrintable(comparison.error()));
    }

    void headProbabilitiesChecksTheHead()
    {
        const auto result = defaultResult();
        QVERIFY(CompareData::headProbabilities(*result, 7).ok());
        QCOMPARE(CompareData::headProbabilities(*result, 7).value(), result->trace.probabilities[7]);
        for (int bad : {-1, 8}) {
            auto weights = CompareData::headProbabilities(*result, bad);
            QVERIFY(!weights.ok());
            QVERIFY2(weights.error().contains(QString::number(bad)) && weights.error().contains("8 heads"),
                     qPrintable(weights.error()));
        }
    }

    // Side B as the causal twin of side A: the same head, the same tokens, zeros above the
    // diagonal, and exactly the non-causal result's first... last row (which sees every key).
    void variantCausal()
    {
        const auto base = defaultResult();
        RunSettings config = base->config;
        config.causal = true;
        auto variant = CompareData::runVariant(*base, config, RunSettings::defaultSentence());
        QVERIFY2(variant.ok(), qPrintable(variant.error()));
        QCOMPARE(variant->seqLen(), base->seqLen());
        const Matrix& causal = variant->trace.probabilities[3];
        const Matrix& full = base->trace.probabilities[3];
        const int last = base->seqLen() - 1;
        QCOMPARE(causal(0, 0), 1.0f);
        QCOMPARE(causal(0, 1), 0.0f);
        // The last query sees every key in both: the same softmax of the same Q and K, twice.
        QCOMPARE(variant->trace.q, base->trace.q);
        QCOMPARE(variant->trace.k, base->trace.k);
        const DoubleMatrix bound = sameScoresProbabilityBound(base->trace, 3, causal, full);
        QVERIFY(
            ((causal.row(last) - full.row(last)).cast<double>().cwiseAbs().array() <= bound.row(last).array()).all());
        QCOMPARE(CompareData::describeDifference(base->config, config), QStringLiteral("causal"));
    }

    void variantSeedAndMatrixInput()
    {
        const auto base = defaultResult();
        RunSettings config = base->config;
        config.seed = 3;
        auto variant = CompareData::runVariant(*base, config, RunSettings::defaultSentence());
        QVERIFY(variant.ok());
        QVERIFY(!variant->trace.probabilities[0].isApprox(base->trace.probabilities[0]));
        QCOMPARE(CompareData::describeDifference(base->config, config), QStringLiteral("seed 3"));
        // Without a sentence (a matrix input) the rows are reused: with the same config the
        // result is the same, bit for bit.
        auto same = CompareData::runVariant(*base, base->config, QString());
        QVERIFY(same.ok());
        QCOMPARE(same->trace.probabilities[4], base->trace.probabilities[4]);
        QCOMPARE(CompareData::describeDifference(base->config, base->config), QString());
    }

    void variantErrors()
    {
        const auto base = defaultResult();
        RunSettings config = base->config;
        config.weight_source = RunSettings::WeightSource::File;
        config.weights_file = QStringLiteral("/no/such/weights.safetensors");
        auto missing = CompareData::runVariant(*base, config, RunSettings::defaultSentence());
        QVERIFY(!missing.ok());
        QVERIFY2(!missing.error().isEmpty(), "the error has a message");
        // Another input size for matrix rows: refused with both sizes named.
        RunSettings wider = base->config;
        wider.d_model = 64;
        wider.num_heads = 4;
        wider.input_dim = 16;
        auto mismatch = CompareData::runVariant(*base, wider, QString());
        QVERIFY(!mismatch.ok());
        QVERIFY2(mismatch.error().contains("16") && mismatch.error().contains("512"), qPrintable(mismatch.error()));
    }

    // ---- HeadMetricsItemModel and HeadMetricsTable ------------------------------------------------

    void metricsModelPassesTheTester()
    {
        HeadMetricsItemModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto result = defaultResult();
        model.setMetrics(computeHeadMetrics(result->trace.probabilities));
        QCOMPARE(model.rowCount(), 8);
        QCOMPARE(model.columnCount(), int(HeadMetricsItemModel::ColumnCount));
        model.setComparedHeads(2, 5);
        QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("2  (A)"));
        QCOMPARE(model.index(5, 0).data().toString(), QStringLiteral("5  (B)"));
        QCOMPARE(model.index(4, 0).data().toString(), QStringLiteral("4"));
        model.setMetrics({});
        QCOMPARE(model.rowCount(), 0);
    }

    void metricsModelValues()
    {
        HeadMetricsItemModel model;
        Matrix previous = Matrix::Zero(3, 3);
        previous(0, 0) = previous(1, 0) = previous(2, 1) = 1.0f;
        model.setMetrics(computeHeadMetrics(std::vector<Matrix>{Matrix::Identity(3, 3), previous}));
        QCOMPARE(model.headerData(HeadMetricsItemModel::EntropyColumn, Qt::Horizontal).toString(),
                 QStringLiteral("entropy"));
        QCOMPARE(model.headerData(HeadMetricsItemModel::PreviousColumn, Qt::Horizontal).toString(),
                 QStringLiteral("previous"));
        QCOMPARE(model.index(0, HeadMetricsItemModel::DiagonalColumn).data().toString(), QStringLiteral("1.000"));
        QCOMPARE(model.index(0, HeadMetricsItemModel::DiagonalColumn).data(HeadMetricsItemModel::kSortRole).toDouble(), 1.0);
        QCOMPARE(model.index(1, HeadMetricsItemModel::PreviousColumn).data(HeadMetricsItemModel::kSortRole).toDouble(), 1.0);
        QCOMPARE(model.index(1, HeadMetricsItemModel::FirstColumn).data().toString(), QStringLiteral("0.667"));
        QCOMPARE(model.index(1, HeadMetricsItemModel::EntropyColumn).data(HeadMetricsItemModel::kHeadRole).toInt(), 1);
    }

    // Sorted by a metric, the rows are in numeric order of it, and a click on a row picks the
    // head of that row (not the row number).
    void tableSortsAndPicks()
    {
        HeadMetricsTable table;
        table.resize(500, 300);
        const auto result = defaultResult(true);
        const std::vector<HeadMetric> metrics = computeHeadMetrics(result->trace.probabilities);
        table.setMetrics(metrics);
        table.sortByColumn(HeadMetricsItemModel::EntropyColumn, Qt::DescendingOrder);
        for (int row = 1; row < 8; ++row)
            QVERIFY(metrics[size_t(table.headAtRow(row - 1))].entropy >= metrics[size_t(table.headAtRow(row))].entropy);
        const int head_in_row_0 = table.headAtRow(0);
        QCOMPARE(head_in_row_0, int(std::max_element(metrics.begin(), metrics.end(),
                                                     [](auto& x, auto& y) { return x.entropy < y.entropy; }) -
                                    metrics.begin()));

        QSignalSpy picked(&table, &HeadMetricsTable::headPicked);
        QSignalSpy picked_b(&table, &HeadMetricsTable::headPickedB);
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        const QRect cell = table.visualRect(table.model()->index(3, HeadMetricsItemModel::MaxColumn));
        QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked[0][0].toInt(), table.headAtRow(3));
        QTest::mouseClick(table.viewport(), Qt::LeftButton, Qt::ShiftModifier, cell.center());
        QCOMPARE(picked_b.count(), 1);
        QCOMPARE(picked_b[0][0].toInt(), table.headAtRow(3));
    }

    // ---- HeadSimilarityView, CompareFigure and CompareView ----------------------------------

    void similarityCellClickPicksThatPair()
    {
        HeadSimilarityView view;
        view.resize(500, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto result = defaultResult();
        view.setHeads(result->trace.probabilities);
        const std::vector<int> order = view.order();
        QCOMPARE(order.size(), size_t(8));
        // The plot shows the divergence in that order.
        for (int r = 0; r < 8; ++r)
            for (int c = 0; c < 8; ++c)
                QCOMPARE(double(view.plot()->values()(r, c)), double(float(view.divergence()(order[r], order[c]))));
        QCOMPARE(view.plot()->rowLabel(0), QStringLiteral("h%1").arg(order[0]));
        QSignalSpy picked(&view, &HeadSimilarityView::headsPicked);
        QVERIFY(clickCell(view.plot(), 2, 6));
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked[0][0].toInt(), order[2]);
        QCOMPARE(picked[0][1].toInt(), order[6]);
    }

    void figureShowsTheDifference()
    {
        CompareFigure figure;
        const auto result = defaultResult();
        QVERIFY(figure.setComparison({result, 1, {}}, {result, 6, {}}).ok());
        const Matrix expected = result->trace.probabilities[1] - result->trace.probabilities[6];
        QCOMPARE(figure.plotDifference()->values(), expected);
        for (int i = 0; i < expected.rows(); ++i)
            for (int j = 0; j < expected.cols(); ++j)
                QCOMPARE(figure.plotDifference()->plottedCell(j, i), double(expected(i, j)));
        // A and B on one scale; the difference centred at 0.
        QCOMPARE(figure.plotA()->valueLow(), figure.plotB()->valueLow());
        QCOMPARE(figure.plotA()->valueHigh(), figure.plotB()->valueHigh());
        QCOMPARE(figure.plotA()->valueHigh(),
                 double(std::max(result->trace.probabilities[1].maxCoeff(), result->trace.probabilities[6].maxCoeff())));
        QCOMPARE(figure.plotDifference()->valueLow(), -figure.plotDifference()->valueHigh());
        QCOMPARE(figure.plotDifference()->colorMap(), ColorMaps::Map::Diverging);
        QVERIFY(figure.caption().contains(QString::number(figure.comparison().divergence, 'f', 4)));
        // A head that does not exist changes nothing.
        const Status bad = figure.setComparison({result, 1, {}}, {result, 9, {}});
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().startsWith("B: head 9"), qPrintable(bad.error()));
        QCOMPARE(figure.plotDifference()->values(), expected);
    }

    // The painted figure (exports) takes the layout whose heatmaps come out larger: at the default
    // 1200 x 900, A and B above and A - B beside the caption below; in a wide picture (docs/images/compare.png's
    // 1300 x 560), the three in a row. Where a plot is drawn its heatmap has coloured cells; the
    // rest of the picture is white, grey or black (text, axes).
    void paintedFigureFillsItsPicture_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("twoRows");
        QTest::addRow("1200 x 900") << QSize(1200, 900) << true;
        QTest::addRow("1300 x 560") << QSize(1300, 560) << false;
    }
    void paintedFigureFillsItsPicture()
    {
        QFETCH(QSize, size);
        QFETCH(bool, twoRows);
        CompareFigure figure;
        figure.resize(size);
        QVERIFY(figure.setComparison({defaultResult(), 1, {}}, {defaultResult(), 6, {}}).ok());
        QImage picture(size, QImage::Format_RGB32);
        QPainter painter(&picture);
        figure.paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
        painter.end();
        // The share of coloured pixels in a region given in fractions of the picture.
        const auto coloured = [&picture](double left, double top, double right, double bottom) {
            int count = 0;
            int total = 0;
            for (int y = int(top * picture.height()); y < int(bottom * picture.height()); ++y)
                for (int x = int(left * picture.width()); x < int(right * picture.width()); ++x, ++total)
                    count += QColor(picture.pixel(x, y)).hsvSaturation() > 60 ? 1 : 0;
            return double(count) / total;
        };
        if (twoRows) {
            QVERIFY(coloured(0.0, 0.1, 0.5, 0.45) > 0.1);   // A
            QVERIFY(coloured(0.5, 0.1, 1.0, 0.45) > 0.1);   // B
            QVERIFY(coloured(0.0, 0.55, 0.5, 0.9) > 0.1);   // A - B
            QCOMPARE(coloured(0.5, 0.55, 1.0, 0.9), 0.0);   // the caption
        } else {
            for (int third = 0; third < 3; ++third)
                QVERIFY(coloured(third / 3.0, 0.2, (third + 1) / 3.0, 0.7) > 0.1);
            QCOMPARE(coloured(0.0, 0.9, 1.0, 1.0), 0.0);  // the caption
        }
    }

    // The Compare tab in a small window (1024 x 640 leaves it about 740 x 450) and a larger one:
    // table headers whole, titles and colour-bar labels never clipped (a shorter variant or an
    // ellipsis), heatmaps no thinner than a readable size (the figure scrolls instead).
    void smallWindowDegradesGracefully_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("1024 x 640 window") << QSize(740, 450);
        QTest::addRow("1300 x 800 window") << QSize(1020, 610);
    }
    void smallWindowDegradesGracefully()
    {
        QFETCH(QSize, size);
        CompareView view;
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResult(defaultResult());
        QCoreApplication::processEvents();
        QHeaderView* header = view.metricsTable()->horizontalHeader();
        for (int column = 0; column < header->count(); ++column)
            QVERIFY2(header->sectionSize(column) >= header->sectionSizeHint(column),
                     qPrintable(QStringLiteral("column %1: %2 < %3")
                                    .arg(column)
                                    .arg(header->sectionSize(column))
                                    .arg(header->sectionSizeHint(column))));
        const QChar ellipsis(0x2026);
        HeatmapPlot* similarity = view.similarityView()->plot();
        QVERIFY(!similarity->title().isEmpty());
        QVERIFY2(!similarity->title().contains(ellipsis), qPrintable(similarity->title()));
        QVERIFY2(!similarity->colorBarLabel().contains(ellipsis), qPrintable(similarity->colorBarLabel()));
        QVERIFY(similarity->width() >= 240);
        for (HeatmapPlot* plot : {view.figure()->plotA(), view.figure()->plotB(), view.figure()->plotDifference()}) {
            QVERIFY2(plot->height() >= 200, qPrintable(QString::number(plot->height())));
            QVERIFY(!plot->title().contains(ellipsis));
        }
    }

    void compareViewPicksHeads()
    {
        CompareView view;
        view.resize(1100, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto result = defaultResult();
        view.setResult(result);
        QCOMPARE(view.headA(), 0);
        QCOMPARE(view.headB(), 1);
        QCOMPARE(view.headChooserA()->count(), 8);
        QCOMPARE(view.metricsTable()->model()->rowCount(), 8);
        QCOMPARE(view.figure()->plotDifference()->values(),
                 Matrix(result->trace.probabilities[0] - result->trace.probabilities[1]));

        QSignalSpy changed(&view, &CompareView::headsChanged);
        view.pickHead(5);  // a grid head or a table row: 5 becomes A, the old A becomes B
        QCOMPARE(view.headA(), 5);
        QCOMPARE(view.headB(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(view.headChooserA()->currentIndex(), 5);
        QCOMPARE(view.figure()->plotDifference()->values(),
                 Matrix(result->trace.probabilities[5] - result->trace.probabilities[0]));

        // A click in the similarity map compares that pair.
        const std::vector<int> order = view.similarityView()->order();
        QVERIFY(clickCell(view.similarityView()->plot(), 3, 1));
        QCOMPARE(view.headA(), order[3]);
        QCOMPARE(view.headB(), order[1]);
        QCOMPARE(view.figure()->plotDifference()->values(),
                 Matrix(result->trace.probabilities[size_t(order[3])] - result->trace.probabilities[size_t(order[1])]));

        // A click in the metrics table picks the head of that row.
        HeadMetricsTable* table = view.metricsTable();
        const int row = table->headAtRow(6) != view.headA() ? 6 : 5;
        const QRect cell = table->visualRect(table->model()->index(row, HeadMetricsItemModel::EntropyColumn));
        const int previous_a = view.headA();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(view.headA(), table->headAtRow(row));
        QCOMPARE(view.headB(), previous_a);

        // A result with fewer heads pulls the heads into range.
        RunSettings small;
        small.d_model = 16;
        small.num_heads = 2;
        auto two = AttentionPipeline::run(small, QStringLiteral("one two three"), TraceDetail::Probabilities);
        QVERIFY(two.ok());
        view.setHeads(7, 6);
        view.setResult(std::make_shared<const AttentionResult>(std::move(two).value()));
        QCOMPARE(view.headA(), 1);
        QCOMPARE(view.headB(), 1);
        QCOMPARE(view.headChooserB()->count(), 2);
    }

    // B under other settings: causal by default (A's setting flipped), the same head on both
    // sides when a head is picked, errors beside the controls and the last good B kept.
    void compareViewOtherSettings()
    {
        AttentionController controller;
        CompareView view;
        connectVariants(view, controller);
        view.resize(1100, 800);
        const auto result = defaultResult();
        view.setSentence(RunSettings::defaultSentence());
        view.setResult(result);  // hidden: kept until shown
        QCOMPARE(view.resultB(), nullptr);
        QCOMPARE(view.metricsTable()->model()->rowCount(), 0);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.resultB(), result);
        QCOMPARE(view.metricsTable()->model()->rowCount(), 8);
        view.setOtherSettings(true);
        controller.waitForIdle();
        QVERIFY(view.usesOtherSettings());
        QVERIFY(view.causalBox()->isChecked());
        const auto b = view.resultB();
        QVERIFY(b && b != result);
        QVERIFY(b->trace.causal);
        QCOMPARE(view.variantError(), QString());
        view.pickHead(4);
        QCOMPARE(view.headA(), 4);
        QCOMPARE(view.headB(), 4);
        const Matrix& causal = view.figure()->plotB()->values();
        QCOMPARE(causal, b->trace.probabilities[4]);
        QCOMPARE(causal(0, 1), 0.0f);
        QVERIFY(view.figure()->plotB()->isMasked(0, 1));
        QVERIFY(!view.figure()->plotDifference()->isMasked(0, 1));  // masked on one side only: a real difference
        QCOMPARE(view.figure()->plotDifference()->values(), Matrix(result->trace.probabilities[4] - b->trace.probabilities[4]));

        // Another seed: B changes, the error stays clear.
        view.seedBox()->setValue(7);
        controller.waitForIdle();
        QCOMPARE(view.resultB()->config.seed, std::uint64_t(7));
        QVERIFY(!view.resultB()->trace.probabilities[4].isApprox(b->trace.probabilities[4]));
        const auto good = view.resultB();

        // A weight file that cannot be read: the reason shows, the last good B stays.
        view.weightsFileEdit()->setText(QStringLiteral("/no/such/dir/weights.safetensors"));
        emit view.weightsFileEdit()->editingFinished();
        controller.waitForIdle();  // a weight file is read on the worker
        QVERIFY(!view.variantError().isEmpty());
        QVERIFY2(view.variantError().contains("weights.safetensors"), qPrintable(view.variantError()));
        QCOMPARE(view.resultB(), good);
        view.weightsFileEdit()->clear();
        emit view.weightsFileEdit()->editingFinished();
        controller.waitForIdle();
        QCOMPARE(view.variantError(), QString());

        // Off again: B is A's result.
        view.setOtherSettings(false);
        QCOMPARE(view.resultB(), result);
    }

    // A long input (one head kept, the others recomputed): the comparison and the tables come
    // from workers while the view stays as it was and says what it is computing; then they are
    // the numbers of the heads' whole matrices. computeNow (an export) finishes them at once.
    void aLongInputIsComparedOnWorkers()
    {
        RunSettings config;
        config.d_model = 16;
        config.num_heads = 4;
        config.causal = true;
        std::optional<LongInputPasses> passes = longInputPasses(config, 1100, 53, 0);
        QVERIFY(passes);
        const auto result = std::make_shared<const AttentionResult>(std::move(passes->blocked));
        QVERIFY(!result->trace.keepsEveryHead());

        CompareView view;
        view.resize(1100, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResult(result);  // heads 0 (kept) and 1 (recomputed)
        QVERIFY(view.isComputing());
        QVERIFY2(view.statusLabel()->text().startsWith(QStringLiteral("Computing heads 0 and 1")),
                 qPrintable(view.statusLabel()->text()));
        QVERIFY(view.tablesNote()->text().startsWith(QStringLiteral("Computing the metrics and similarity of 4 heads")));
        QCOMPARE(view.metricsTable()->model()->rowCount(), 0);
        if (const QString dir = qEnvironmentVariable("ATTN_COMPARE_PNG_DIR"); !dir.isEmpty())
            view.grab().save(dir + QStringLiteral("/compare-computing.png"));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isComputing(), 30000);
        QCOMPARE(view.statusLabel()->text(), QString());

        const HeadComparison& shown = view.figure()->comparison();
        QVERIFY(shown.a == result->trace.probabilities[0]);
        QVERIFY(shown.b == *AttentionDisplay::headProbabilities(*result, 1));
        std::vector<Matrix> heads;
        for (int head = 0; head < 4; ++head)
            heads.push_back(*AttentionDisplay::headProbabilities(*result, head));
        const std::vector<HeadMetric> metrics = computeHeadMetrics(heads);
        const auto* model = view.metricsTable()->metricsModel();
        QCOMPARE(int(model->metrics().size()), 4);
        for (int head = 0; head < 4; ++head)
            QVERIFY(model->metrics()[size_t(head)].entropy == metrics[size_t(head)].entropy);
        QVERIFY(view.similarityView()->divergence() == similarityMatrix(heads));
        // The percentile scale's tops came with the comparison: each head's cells outside the views'
        // mask (a reduced plot holds no mask of the matrix's size, so the figure would have counted
        // the masked zeros too).
        const MaskMatrix mask = HeatmapData::fromResult(*result).mask;
        QVERIFY(mask.size() > 0);  // causal
        QCOMPARE(*shown.percentile_a, AttentionDisplay::percentile({shown.a}, mask, ColorScales::kPercentile));
        QCOMPARE(*shown.percentile_b, AttentionDisplay::percentile({shown.b}, mask, ColorScales::kPercentile));
        QVERIFY(view.tablesNote()->isHidden());  // every query compared: nothing to say

        // Another pair while hidden waits for the view; an export finishes it at once.
        view.hide();
        view.setHeads(2, 3);
        QVERIFY(view.isComputing());
        view.computeNow();
        QVERIFY(!view.isComputing());
        QVERIFY(view.figure()->comparison().a == *AttentionDisplay::headProbabilities(*result, 2));
        QVERIFY(view.figure()->comparison().b == *AttentionDisplay::headProbabilities(*result, 3));
    }
};

REGISTER_TEST_SUITE(TestCompare, QApplication)
#include "test_compare.moc"
