// The Model tab offscreen, on the gpt2-tiny fixture run by the real loader and forward pass: the
// explanation without a model; every layer x head drawn on one colour scale; a click or Enter on a
// thumbnail emits headActivated(layer, head); the hover text and the table give the selected
// layer's head metrics; ViewTabs forwards it all. And the Shapes tab with a model: the whole chain,
// its attention block opening the single-layer diagram.
#include "core/analysis/HeadMetrics.h"
#include "core/analysis/HeadScores.h"
#include "core/analysis/ModelParameters.h"
#include "core/base/SplitMix64.h"
#include "core/model/TransformerModel.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/ModelLayerResult.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "ui/export/ViewExporter.h"
#include "ui/heatmap/Hatch.h"
#include "ui/heatmap/KvGroupMarks.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/shapes/ModelChainView.h"
#include "ui/views/shapes/ShapeDiagramView.h"
#include "ui/views/shapes/ShapesPanel.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

const QString kFixture = fixturesPath("models/gpt2-tiny");

}  // namespace

class TestModelView : public QObject {
    Q_OBJECT

    std::unique_ptr<TransformerModel> m_model;
    std::shared_ptr<const ModelRun> m_run;

    // The Model tab on screen, showing the fixture's run.
    bool showRun(ModelView& view) const
    {
        view.resize(1000, 800);
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return false;
        view.setModelRun(m_run, {});
        return true;
    }

private slots:
    void initTestCase()
    {
        auto model = TransformerModel::load(kFixture);
        QVERIFY2(model, qPrintable(model ? QString() : model.error()));
        m_model = std::move(model).value();
        auto run = m_model->forward({8086, 1463, 2125, 470, 477, 345, 761, 11, 475, 340});
        QVERIFY(run);
        m_run = std::make_shared<const ModelRun>(std::move(run).value());
        QCOMPARE(m_run->numLayers(), 2);
        QCOMPARE(m_run->attention.numHeads(), 4);
    }

    void explainsWithoutAModel()
    {
        ModelView view;
        view.resize(800, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.hasModel());
        QVERIFY(view.emptyLabel()->isVisible());
        QVERIFY(view.emptyLabel()->text().contains("Open a model folder"));
        view.setModelRun(m_run, {});
        QVERIFY(view.hasModel());
        QVERIFY(!view.emptyLabel()->isVisible());
        QVERIFY(view.canvas()->isVisible());
        view.clearModel();
        QVERIFY(!view.hasModel());
        QVERIFY(view.emptyLabel()->isVisible());
    }

    // Grouped-query attention (llama-tiny: 4 query heads, 2 key/value heads): a bracket in the
    // colour of each group above its heads, a dark separator in the gap between H1 and H2 and none
    // between H0 and H1; the All heads grid brackets the same groups.
    void groupsOfKeyValueHeadsAreMarked()
    {
        auto model = TransformerModel::load(fixturesPath("models/llama-tiny"));
        QVERIFY(model);
        const std::vector<int> ids = {5, 17, 63, 2, 40, 11, 29, 71};
        auto run = (*model)->forward(ids);
        QVERIFY(run);
        const auto shared_run = std::make_shared<const ModelRun>(std::move(run).value());
        QCOMPARE(shared_run->num_kv_heads, 2);
        const auto hasColour = [](const QImage& image, const QRect& area, QRgb colour) {
            for (int y = std::max(0, area.top()); y <= area.bottom() && y < image.height(); ++y)
                for (int x = std::max(0, area.left()); x <= area.right() && x < image.width(); ++x)
                    if ((image.pixel(x, y) & 0xffffff) == (colour & 0xffffff))
                        return true;
            return false;
        };
        const QRgb first_group = qRgb(0xc2, 0x5b, 0x12);
        const QRgb second_group = qRgb(0x1b, 0x6c, 0xa8);
        const QRgb separator = qRgb(0x50, 0x50, 0x50);

        ModelView view;
        view.resize(1000, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setModelRun(shared_run, {});
        ModelGridCanvas* canvas = view.canvas();
        const QImage image = canvas->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const QRect h0 = canvas->thumbnailRect(0, 0), h1 = canvas->thumbnailRect(0, 1),
                    h2 = canvas->thumbnailRect(0, 2);
        const QRect band(h0.left(), h0.top() - 45, h2.right() - h0.left(), 44);  // above the H labels
        QVERIFY(hasColour(image, QRect(h0.left(), band.top(), h1.right() - h0.left(), band.height()), first_group));
        QVERIFY(!hasColour(image, QRect(h0.left(), band.top(), h1.right() - h0.left(), band.height()), second_group));
        QVERIFY(hasColour(image, QRect(h2.left(), band.top(), h2.width(), band.height()), second_group));
        QVERIFY(hasColour(image, QRect(h1.right() + 1, h1.top(), h2.left() - h1.right() - 1, h1.height()), separator));
        QVERIFY(!hasColour(image, QRect(h0.right() + 1, h0.top(), h1.left() - h0.right() - 1, h0.height()), separator));

        QStringList texts;
        for (int id : ids)
            texts.append(QString::number(id));
        auto layer = ModelLayerResult::make(**model, QStringLiteral("llama-tiny"), *shared_run, texts, 0);
        QVERIFY(layer);
        HeadsGrid grid;
        grid.resize(900, 700);
        grid.setResult(std::make_shared<const AttentionResult>(std::move(layer).value()));
        QImage picture(grid.size(), QImage::Format_RGB32);
        QPainter painter(&picture);
        grid.render(&painter, QRectF(QPointF(0, 0), QSizeF(grid.size())));
        painter.end();
        for (int head = 0; head < 4; ++head) {
            const QRect plot = grid.plot(head)->geometry();
            const QRect above(plot.left(), plot.top() - int(KvGroupMarks::kBandHeight), plot.width(),
                              int(KvGroupMarks::kBandHeight));
            QVERIFY2(hasColour(picture, above, head < 2 ? first_group : second_group),
                     qPrintable(QString::number(head)));
        }
    }

    // On screen each thumbnail is the head (10 tokens fit its pixels): every cell's centre has
    // the colour of its weight on the shared scale, masked cells hatched as every heatmap's (the
    // grey of Hatch with its lines: each head's masked triangle shows both).
    void drawsEveryHeadOnOneScale()
    {
        ModelView view;
        QVERIFY(showRun(view));
        ModelGridCanvas* canvas = view.canvas();
        const QImage image = canvas->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const ModelGridPainter& painter = canvas->gridPainter();
        const int t = m_run->seqLen();
        const double top = painter.top(t);
        // The top: the largest weight outside causal row 0.
        float expected_top = 0.0f;
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h)
                expected_top = std::max(expected_top, m_run->attention.head(l, h).bottomRows(t - 1).maxCoeff());
        QCOMPARE(top, double(expected_top));
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h) {
                const QRect rect = canvas->thumbnailRect(l, h);
                QVERIFY(rect.width() >= t);
                int fill = 0;
                int lines = 0;
                for (int q = 0; q < t; ++q)
                    for (int k = 0; k < t; ++k) {
                        const QPoint centre(int(rect.left() + (k + 0.5) * rect.width() / t),
                                            int(rect.top() + (q + 0.5) * rect.height() / t));
                        const QRgb found = image.pixel(centre) & 0xffffff;
                        if (k > q) {
                            fill += found == (Hatch::fill().rgb() & 0xffffff);
                            lines += found == (Hatch::line().rgb() & 0xffffff);
                            QVERIFY(found == (Hatch::fill().rgb() & 0xffffff) ||
                                    found == (Hatch::line().rgb() & 0xffffff));
                            continue;
                        }
                        const QRgb want =
                            ModelGridPainter::colorOf(ColorMaps::Map::Viridis, m_run->attention.at(l, h, q, k), top);
                        QCOMPARE(found, want & 0xffffff);
                    }
                // The masked triangle's pixels, not only the cells' centres, for the lines.
                for (int y = rect.top(); y < rect.bottom(); ++y)
                    for (int x = rect.left(); x < rect.right(); ++x) {
                        const int q = int((y - rect.top()) * t / rect.height());
                        const int k = int((x - rect.left()) * t / rect.width());
                        if (k > q + 1)
                            lines += (image.pixel(x, y) & 0xffffff) == (Hatch::line().rgb() & 0xffffff);
                    }
                QVERIFY2(
                    fill > 0 && lines > 0,
                    qPrintable(
                        QStringLiteral("head L%1 H%2: %3 grey, %4 line pixels").arg(l).arg(h).arg(fill).arg(lines)));
            }
    }

    void clickAndEnterActivateAHead()
    {
        ModelView view;
        QVERIFY(showRun(view));
        QSignalSpy activated(&view, &ModelView::headActivated);
        ModelGridCanvas* canvas = view.canvas();
        QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->thumbnailRect(1, 2).center());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.last().at(0).toInt(), 1);
        QCOMPARE(activated.last().at(1).toInt(), 2);
        QCOMPARE(view.selectedLayer(), 1);  // the table follows the clicked head's layer
        // Between the thumbnails: nothing.
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(activated.count(), 1);
        // Keyboard: the arrows move from the current head, Enter opens it.
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Up);
        QTest::keyClick(canvas, Qt::Key_Right);
        QTest::keyClick(canvas, Qt::Key_Return);
        QCOMPARE(activated.count(), 2);
        QCOMPARE(activated.last().at(0).toInt(), 0);
        QCOMPARE(activated.last().at(1).toInt(), 3);
        QCOMPARE(view.selectedLayer(), 0);
        QTest::keyClick(canvas, Qt::Key_Right);  // already the last head: stays
        QTest::keyClick(canvas, Qt::Key_Enter);
        QCOMPARE(activated.last().at(1).toInt(), 3);
    }

    void metricsOfTheSelectedLayer()
    {
        ModelView view;
        QVERIFY(showRun(view));
        QTableWidget* table = view.metricsTable();
        QTRY_COMPARE(table->rowCount(), 4);  // filled once the grid is drawn: layer 0 first
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("L0 H0"));
        view.selectLayer(1);
        QCOMPARE(table->rowCount(), 4);
        for (int row = 0; row < 4; ++row) {
            const int head = table->item(row, 0)->data(Qt::UserRole).toInt() - 4;  // layer x 4 + head
            const HeadMetric m = computeHeadMetrics(m_run->attention.head(1, head));
            QCOMPARE(table->item(row, 1)->data(Qt::UserRole).toDouble(), m.entropy);
            QCOMPARE(table->item(row, 7)->data(Qt::UserRole).toDouble(), m.first);
            const HeadScore score = HeadScores::score(m_run->attention, 1, head, m_run->token_ids, {});
            // One "previous" on the tab: the frames' and --json's head_scores, not a mean over rows 1..T-1.
            QCOMPARE(table->item(row, 4)->data(Qt::UserRole).toDouble(), score.previous);
            QVERIFY(std::abs(score.previous - m.previous) > 1e-9 || m.previous == 0.0);
            QVERIFY2(view.canvas()->describeHead(1, head).contains(
                         QStringLiteral("previous %1").arg(score.previous, 0, 'f', 3)),
                     qPrintable(view.canvas()->describeHead(1, head)));
            QCOMPARE(table->item(row, 5)->data(Qt::UserRole).toDouble(), score.duplicate);
            QCOMPARE(table->item(row, 6)->data(Qt::UserRole).toDouble(), score.induction);
            QCOMPARE(table->item(row, 0)->text(), QStringLiteral("L1 H%1").arg(head));
        }
        // Hidden keys change the thumbnails only: the table and the frames keep the scores of the
        // maps as computed, as --json does.
        view.setHiddenKeys({1});
        view.selectLayer(1);
        for (int row = 0; row < 4; ++row) {
            const int head = table->item(row, 0)->data(Qt::UserRole).toInt() - 4;
            QCOMPARE(table->item(row, 4)->data(Qt::UserRole).toDouble(),
                     HeadScores::score(m_run->attention, 1, head, m_run->token_ids, {}).previous);
        }
        view.setHiddenKeys({});
        // Sorted by entropy (numerically), then a double click opens that row's head.
        table->sortItems(1, Qt::DescendingOrder);
        QVERIFY(table->item(0, 1)->data(Qt::UserRole).toDouble() >= table->item(3, 1)->data(Qt::UserRole).toDouble());
        QSignalSpy activated(&view, &ModelView::headActivated);
        const int top_head = table->item(0, 0)->data(Qt::UserRole).toInt() - 4;
        emit table->cellDoubleClicked(0, 2);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.last().at(0).toInt(), 1);
        QCOMPARE(activated.last().at(1).toInt(), top_head);
        // Every layer's heads in one list, sorted by induction: the model's top induction head first,
        // and a double click opens it in its own layer.
        view.tableScopeBox()->setCurrentIndex(1);
        emit view.tableScopeBox()->activated(1);
        QCOMPARE(table->rowCount(), 8);
        table->sortItems(6, Qt::DescendingOrder);
        double best = -1.0;
        for (int layer = 0; layer < 2; ++layer)
            for (int head = 0; head < 4; ++head)
                best = std::max(best, HeadScores::score(m_run->attention, layer, head, m_run->token_ids, {}).induction);
        QCOMPARE(table->item(0, 6)->data(Qt::UserRole).toDouble(), best);
        const int top_index = table->item(0, 0)->data(Qt::UserRole).toInt();  // layer x 4 + head
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("L%1 H%2").arg(top_index / 4).arg(top_index % 4));
        emit table->cellDoubleClicked(0, 0);
        QCOMPARE(activated.last().at(0).toInt(), top_index / 4);
        QCOMPARE(activated.last().at(1).toInt(), top_index % 4);
        view.selectLayer(0);
        QCOMPARE(table->rowCount(), 8);  // the list of every layer stays
        view.tableScopeBox()->setCurrentIndex(0);
        emit view.tableScopeBox()->activated(0);
        // Frames by a score: every head's score of that kind, layer after layer; "No frames" clears them.
        view.marksBox()->setCurrentIndex(view.marksBox()->findData(QStringLiteral("induction")));
        const std::vector<HeadScore> scores = HeadScores::compute(m_run->attention, m_run->token_ids);
        QCOMPARE(view.canvas()->gridPainter().headMarks().size(), size_t(8));
        for (size_t k = 0; k < 8; ++k)
            QCOMPARE(view.canvas()->gridPainter().headMarks()[k], scores[k].induction);
        view.marksBox()->setCurrentIndex(0);
        QVERIFY(view.canvas()->gridPainter().headMarks().empty());
        // The hover text names the head and its metrics.
        const QString hover = view.canvas()->describeHead(1, 2);
        QVERIFY(hover.contains("layer 1, head 2"));
        QVERIFY(hover.contains(QString::number(computeHeadMetrics(m_run->attention.head(1, 2)).entropy, 'f', 3)));
        // Over a cell: its tokens and weight, or that it is masked.
        view.setModelRun(m_run, {"Att", "ention", "Ġisn", "'t", "Ġall", "Ġyou", "Ġneed", ",", "Ġbut", "Ġit"});
        const QString cell = view.canvas()->describeHead(1, 2, 4, 1);
        QVERIFY2(cell.contains(
                     QStringLiteral("query 'Ġall' → key 'ention': %1").arg(m_run->attention.at(1, 2, 4, 1), 0, 'f', 3)),
                 qPrintable(cell));
        QVERIFY(view.canvas()->describeHead(1, 2, 1, 4).contains("masked"));
    }

    // The scores and metrics of a run are computed off the GUI thread: setModelRun returns with
    // the grid ready to draw and the table saying it is computing; they arrive as one, with the
    // order and frames chosen; a run replaced before its scores arrive never shows them; an
    // export (computeNow) has them at once.
    void scoresArriveFromTheViewsThread()
    {
        ModelView view;
        view.orderBox()->setCurrentIndex(view.orderBox()->findData(QStringLiteral("induction")));
        view.marksBox()->setCurrentIndex(view.marksBox()->findData(QStringLiteral("previous")));
        QSignalSpy computed(&view, &ModelView::headTablesComputed);
        QVERIFY(showRun(view));
        QVERIFY(!view.headTablesReady());
        QCOMPARE(view.metricsTable()->rowCount(), 0);
        QVERIFY(view.findChildren<QLabel*>().size() > 0);
        bool says_computing = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            says_computing = says_computing || label->text().contains(QStringLiteral("computing"));
        QVERIFY(says_computing);
        QVERIFY(computed.wait(5000));
        QVERIFY(view.headTablesReady());
        QCOMPARE(view.metricsTable()->rowCount(), 4);
        const std::vector<HeadScore> scores = HeadScores::compute(m_run->attention, m_run->token_ids);
        const ModelGridPainter& grid = view.canvas()->gridPainter();
        QVERIFY(grid.isOrdered());
        QCOMPARE(grid.headMarks().size(), size_t(8));
        for (size_t k = 0; k < 8; ++k)
            QCOMPARE(grid.headMarks()[k], scores[k].previous);
        const HeadMetric metric = computeHeadMetrics(m_run->attention.head(1, 3));
        QCOMPARE(view.canvas()->metric(1, 3).entropy, metric.entropy);

        // Two runs in a row: only the second one's scores arrive.
        auto other_run = m_model->forward({8086, 8086, 8086, 470, 8086, 470, 8086, 470, 8086, 470});
        QVERIFY(other_run);
        const auto other = std::make_shared<const ModelRun>(std::move(other_run).value());
        computed.clear();
        view.setModelRun(m_run, {});
        view.setModelRun(other, {});
        QVERIFY(computed.wait(5000));
        QTest::qWait(50);  // time for a stray first result to arrive, if one were sent
        QCOMPARE(computed.count(), 1);
        const std::vector<HeadScore> other_scores = HeadScores::compute(other->attention, other->token_ids);
        for (size_t k = 0; k < 8; ++k)
            QCOMPARE(grid.headMarks()[k], other_scores[k].previous);

        // An export asks for them at once.
        view.setModelRun(m_run, {});
        view.computeNow();
        QVERIFY(view.headTablesReady());
        for (size_t k = 0; k < 8; ++k)
            QCOMPARE(grid.headMarks()[k], scores[k].previous);
    }

    // Sorted by a score, each layer's heads are drawn highest first: a click on column 0 opens that
    // layer's best head, the arrows move between slots on screen, and the captions say so. An
    // aggregate adds a column (each layer's heads fused), a row (each head across the layers) and
    // a corner, none of them a head to open.
    void sortedGridAndAggregates()
    {
        ModelView view;
        QVERIFY(showRun(view));
        ModelGridCanvas* canvas = view.canvas();
        const ModelGridPainter& grid = canvas->gridPainter();
        view.orderBox()->setCurrentIndex(view.orderBox()->findData(QStringLiteral("first")));
        QTRY_VERIFY(grid.isOrdered());  // once the scores arrive from the view's thread
        const std::vector<HeadScore> scores = HeadScores::compute(m_run->attention, m_run->token_ids);
        for (int layer = 0; layer < 2; ++layer) {
            for (int column = 0; column + 1 < 4; ++column)
                QVERIFY(scores[size_t(layer * 4 + grid.headIn(layer, column))].first >=
                        scores[size_t(layer * 4 + grid.headIn(layer, column + 1))].first);
            for (int head = 0; head < 4; ++head)
                QCOMPARE(grid.headIn(layer, grid.columnOf(layer, head)), head);
        }
        const ModelGridPainter::Layout layout = grid.layoutFor(canvas->size());
        QSignalSpy activated(&view, &ModelView::headActivated);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, layout.columns[0].center().toPoint() + QPoint(0, 0));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.last().at(0).toInt(), 0);
        QCOMPARE(activated.last().at(1).toInt(), grid.headIn(0, 0));
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Right);
        QTest::keyClick(canvas, Qt::Key_Return);
        QCOMPARE(activated.last().at(1).toInt(), grid.headIn(0, 1));

        view.setAggregate(HeadAggregate::Mean);
        QCOMPARE(grid.aggregate(), std::optional(HeadFusion::Mean));
        const ModelGridPainter::Layout sorted = grid.layoutFor(canvas->size());
        QCOMPARE(sorted.layer_aggregates.size(), 2);
        QVERIFY(sorted.head_aggregates.isEmpty());  // a sorted column holds different heads
        QVERIFY(!sorted.all_aggregate.isEmpty());
        view.orderBox()->setCurrentIndex(0);
        QVERIFY(!grid.isOrdered());
        const ModelGridPainter::Layout layout2 = grid.layoutFor(canvas->size());
        QCOMPARE(layout2.head_aggregates.size(), 4);
        QVERIFY(layout2.layer_aggregates[1].left() > layout2.thumbnails[1 * 4 + 3].right());
        QVERIFY(layout2.head_aggregates[2].top() > layout2.thumbnails[1 * 4 + 2].bottom());
        QCOMPARE(grid.aggregateAt(layout2.layer_aggregates[1].center(), canvas->size()),
                 QStringLiteral("the mean of layer 1's heads"));
        QCOMPARE(grid.aggregateAt(layout2.head_aggregates[2].center(), canvas->size()),
                 QStringLiteral("the mean of head 2 over every layer"));
        QVERIFY(!grid.headAt(layout2.all_aggregate.center(), canvas->size()));
        QTest::mouseClick(canvas, Qt::LeftButton, {}, layout2.all_aggregate.center().toPoint());
        QCOMPARE(activated.count(), 2);  // no head opened

        // The picture: the corner (every head of every layer, mean) in its own colours, and with the
        // log scale the colour bar is logarithmic; hidden keys are named in the caption.
        QImage image(canvas->size(), QImage::Format_RGB32);
        QPainter painter(&image);
        grid.paint(painter, QRectF(QPointF(0, 0), QSizeF(image.size())), ModelGridPainter::Output::Screen);
        painter.end();
        const QPoint corner = layout2.all_aggregate.center().toPoint();
        QVERIFY(image.pixel(corner) != qRgb(255, 255, 255));
        view.setHiddenKeys({0});
        QCOMPARE(grid.hiddenKeys(), std::vector<int>{0});
        view.setHiddenKeys({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});  // every key: shown as computed
        QVERIFY(grid.hiddenKeys().empty());
        view.setHiddenKeys({});
        view.setAggregate(HeadAggregate::None);
        QVERIFY(grid.layoutFor(canvas->size()).layer_aggregates.isEmpty());
    }

    // Mean instead of max changes what a reduced pixel shows (the same at full size).
    void reductionChoice()
    {
        ModelView view;
        view.resize(1000, 800);
        view.setModelRun(m_run, {});
        QCOMPARE(view.canvas()->gridPainter().reduction(), ThumbnailReduction::Max);
        view.reductionBox()->setCurrentIndex(1);
        emit view.reductionBox()->activated(1);
        QCOMPARE(view.canvas()->gridPainter().reduction(), ThumbnailReduction::Mean);
    }

    // Beyond 64 x 64 tokens a picture's thumbnails are lossless images of whole pixels per cell
    // (no rectangles): in PNG every cell's centre still has its weight's colour, and the SVG
    // embeds images instead of 144 x T x T rectangles.
    void pictureOfALongRunIsAnImage()
    {
        constexpr int kTokens = 100;
        auto run = std::make_shared<ModelRun>();
        run->token_ids.assign(kTokens, 0);
        run->attention = AttentionMaps(1, 2, kTokens, false);
        SplitMix64 random(7);
        std::vector<Matrix> heads;
        for (int h = 0; h < 2; ++h) {
            Matrix weights(kTokens, kTokens);  // (T, T)
            for (int i = 0; i < kTokens; ++i) {
                for (int j = 0; j < kTokens; ++j)
                    weights(i, j) = float(random.uniform());
                weights.row(i) /= weights.row(i).sum();
            }
            heads.push_back(std::move(weights));
        }
        run->attention.setLayer(0, std::move(heads));
        QTemporaryDir dir;
        ExportRequest request;
        request.view = View::Model;
        request.size = QSize(900, 500);
        request.path = dir.filePath("long.png");
        QVERIFY(ViewExporter::exportRun(*run, ModelConfig(), {}, QStringLiteral("long"), request).ok());
        request.path = dir.filePath("long.svg");
        QVERIFY(ViewExporter::exportRun(*run, ModelConfig(), {}, QStringLiteral("long"), request).ok());
        const QImage image = QImage(dir.filePath("long.png")).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(image.size(), request.size);
        ModelGridPainter painter;
        painter.setRun(run);
        const ModelGridPainter::Layout layout = painter.layoutFor(QSizeF(request.size));
        QVERIFY(layout.side >= kTokens);  // one image pixel or more per cell: nothing reduced
        const double top = painter.top(kTokens);
        for (int h = 0; h < 2; ++h)
            for (int q = 0; q < kTokens; q += 3)
                for (int k = 0; k < kTokens; k += 3) {
                    const QRectF rect = layout.thumbnails[h];
                    const QPoint centre(int(rect.left() + (k + 0.5) * rect.width() / kTokens),
                                        int(rect.top() + (q + 0.5) * rect.height() / kTokens));
                    QCOMPARE(image.pixel(centre) & 0xffffff,
                             ModelGridPainter::colorOf(ColorMaps::Map::Viridis, run->attention.at(0, h, q, k), top) &
                                 0xffffff);
                }
        QFile svg(dir.filePath("long.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QCOMPARE(text.count("<image"), 2);
        QVERIFY(text.count("<path") < 200);  // labels and the colour bar, not cells
    }

    void viewTabsForwardTheModel()
    {
        ViewTabs tabs;
        QCOMPARE(tabs.count(), int(ViewRegistry::rows().size()));
        QCOMPARE(tabs.widget(int(View::Model)), tabs.modelView());
        QCOMPARE(viewKey(View::Model), QStringLiteral("model"));
        QCOMPARE(viewFromKey("Model"), std::optional<View>(View::Model));
        tabs.setModelRun(m_run, {});
        QVERIFY(tabs.modelView()->hasModel());
        QSignalSpy activated(&tabs, &ViewTabs::modelHeadActivated);
        emit tabs.modelView()->headActivated(1, 3);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.last().at(1).toInt(), 3);
        tabs.setCurrentView(View::Model);
        QCOMPARE(tabs.currentExportName(), QStringLiteral("attention-model.png"));
        tabs.clearModel();
        QVERIFY(!tabs.modelView()->hasModel());
    }

    void shapesOfAWholeModel()
    {
        ShapesPanel panel;
        panel.resize(1200, 950);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        RunSettings settings;
        auto result = AttentionPipeline::run(settings, QStringLiteral("one two three"), TraceDetail::Probabilities);
        QVERIFY(result);
        panel.setResult(std::make_shared<const AttentionResult>(std::move(result).value()));
        QVERIFY(!panel.showsModelChain());
        panel.setModelConfig(&m_model->config());
        QVERIFY(panel.showsModelChain());
        QVERIFY(panel.modelView()->isVisible());
        const ModelChainPainter* chain = panel.modelView()->chain();
        QVERIFY(chain);
        QCOMPARE(chain->seqLen(), 3);
        QCOMPARE(chain->counts().total(), ModelParameterCounts::of(m_model->config()).total());
        // The attention block opens the single-layer diagram; "Whole model" goes back.
        QTest::qWait(0);
        const QRectF attention = panel.modelView()->boxRect(ModelChainPainter::Box::Attention);
        QVERIFY(!attention.isEmpty());
        QTest::mouseClick(panel.modelView(), Qt::LeftButton, {}, attention.center().toPoint());
        QVERIFY(!panel.showsModelChain());
        QVERIFY(panel.view()->isVisible());
        panel.showModelChain(true);
        QVERIFY(panel.showsModelChain());
        panel.setModelConfig(nullptr);
        QVERIFY(!panel.showsModelChain());
        QVERIFY(panel.view()->isVisible());
    }
};

REGISTER_TEST_SUITE(TestModelView, QApplication)
#include "test_model_view.moc"
