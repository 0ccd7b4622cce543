// The step-by-step walkthrough's widgets: its tables show the walkthrough's numbers (which
// test_walkthrough_data checks against the trace and the tutorial), the rotary step, and the
// selection kept in sync with the heatmaps.

#include "core/analysis/WalkthroughData.h"
#include "core/model/TransformerModel.h"
#include "core/pipeline/ModelLayerResult.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/ToyAttention.h"
#include "ui/views/walkthrough/ScoreBreakdownView.h"
#include "ui/views/walkthrough/WalkthroughItemModel.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QWheelEvent>

#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::testing;

namespace {

// Set ATTENTION_PICTURES_DIR to keep a picture of the whole walkthrough page for a look.
void keepPicture(QWidget& view, const QString& name)
{
    const QString dir = qEnvironmentVariable("ATTENTION_PICTURES_DIR");
    if (dir.isEmpty())
        return;
    auto* scroll = view.findChild<QScrollArea*>();
    QWidget* page = scroll ? scroll->widget() : &view;
    page->resize(view.width(), page->sizeHint().height());
    page->grab().save(QDir(dir).filePath(name));
}

}  // namespace

class TestWalkthrough : public QObject {
    Q_OBJECT

private slots:
    // A rotary model's layer: step 2b between steps 2 and 3 with its three tables (q and k before
    // and after, K before, the angles); a result without rotary positions hides it.
    void rotationSectionOfARotaryModel()
    {
        WalkthroughView view;
        view.resize(1200, 900);
        view.setResult(std::make_shared<const AttentionResult>(test::toyResult()));
        QVERIFY(view.rotationHeader()->isHidden());
        QVERIFY(!view.rotationTableModel(0));

        auto model = TransformerModel::load(fixturesPath("models/llama-tiny"));
        QVERIFY(model);
        auto run = (*model)->forward({5, 17, 63, 2, 40, 11}, 1);
        QVERIFY(run);
        auto result =
            ModelLayerResult::make(**model, QStringLiteral("llama-tiny"), *run, {"a", "b", "c", "d", "e", "f"}, 1);
        QVERIFY(result);
        view.setResult(std::make_shared<const AttentionResult>(std::move(result).value()));
        view.select(3, 4);
        QVERIFY(!view.rotationHeader()->isHidden());
        QVERIFY(view.rotationHeader()->text().contains(QStringLiteral("2b.")));
        QVERIFY(view.rotationHeader()->text().contains(QStringLiteral("Rotary positions")));
        QCOMPARE(view.rotationTableModel(0)->rowCount(), 4);  // q, q', k, k' at position 4
        QCOMPARE(view.rotationTableModel(0)->table().values.row(1), view.walkthrough().step(2).tables[0].values.row(4));
        QCOMPARE(view.rotationTableModel(2)->rowCount(), 4);  // R/2 = 4 pairs of llama-tiny's d_k = 8
    }

    void tableModel()
    {
        WalkthroughItemModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const WalkthroughData walk = WalkthroughData::build(test::toyResult(true), 0, 1);
        model.setTable(walk.step(5).tables[0]);  // masked scores (3 x 3)
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("4.0000"));
        QCOMPARE(model.index(1, 2).data().toString(), QStringLiteral("−∞"));
        QVERIFY(std::isinf(model.index(1, 2).data(WalkthroughItemModel::ValueRole).toDouble()));
        QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("2"));
        QVERIFY(model.index(1, 0).data(Qt::BackgroundRole).isValid());  // the query's row
        QVERIFY(!model.index(0, 0).data(Qt::BackgroundRole).isValid());
        QVERIFY(model.index(1, 1).data(Qt::FontRole).value<QFont>().bold());

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setPrecision(1);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("4.0"));
        model.setTable(walk.step(6).tables[0]);  // same size: in place
        QCOMPARE(reset.count(), 0);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("1.0"));
        model.setTable(walk.step(9).tables[0]);  // concat has head columns highlighted
        model.setTable(walk.step(2).tables[0]);
        model.setTable(WalkthroughData::build(test::sentenceResult(16, 4), 1, 2).step(9).tables[0]);
        QCOMPARE(reset.count(), 1);
        QVERIFY(model.index(0, 4).data(Qt::BackgroundRole).isValid());  // head 1: columns 4..7
        QVERIFY(!model.index(0, 8).data(Qt::BackgroundRole).isValid());
        QVERIFY(model.index(2, 8).data(Qt::BackgroundRole).isValid());  // row 2 is the query
        model.setTable({});
        QCOMPARE(model.rowCount(), 0);

        QCOMPARE(WalkthroughItemModel::formatValue(1.93664f, 4), QStringLiteral("1.9366"));
        QCOMPARE(WalkthroughItemModel::formatValue(-2.0f, 0), QStringLiteral("-2"));
        QCOMPARE(WalkthroughItemModel::formatValue(-std::numeric_limits<float>::infinity(), 3), QStringLiteral("−∞"));
        QCOMPARE(WalkthroughItemModel::formatValue(std::numeric_limits<float>::quiet_NaN(), 3), QStringLiteral("NaN"));
    }

    // The widget shows the toy example's numbers as the tutorial prints them.
    void widgetToyNumbers()
    {
        WalkthroughView view;
        view.resize(1200, 900);
        QVERIFY(!view.tableModel(3, 0));
        view.setResult(std::make_shared<const AttentionResult>(test::toyResult()));
        auto row = [&](int step, int table, int r) {
            QStringList cells;
            const WalkthroughItemModel* model = view.tableModel(step, table);
            for (int c = 0; c < model->columnCount(); ++c)
                cells.append(model->index(r, c).data().toString());
            return cells;
        };
        QCOMPARE(row(3, 0, 0), (QStringList{"2.0000", "4.0000", "4.0000"}));
        QCOMPARE(row(6, 0, 0), (QStringList{"0.0634", "0.4683", "0.4683"}));
        QCOMPARE(row(8, 0, 0), (QStringList{"1.9366", "6.6831", "1.5951"}));
        QCOMPARE(row(10, 0, 0), (QStringList{"1.9366", "6.6831", "1.5951"}));
        QVERIFY(!view.tableModel(1, 1));  // no positional part
        QVERIFY(view.tableModel(2, 2));   // V
        QVERIFY(!view.tableModel(2, 3));
        view.precisionSpinBox()->setValue(2);
        QCOMPARE(view.precision(), 2);
        QCOMPARE(row(6, 0, 0), (QStringList{"0.06", "0.47", "0.47"}));
        QCOMPARE(view.breakdown()->products().values, view.walkthrough().products.values);
        QCOMPARE(view.queryComboBox()->count(), 3);
        QCOMPARE(view.headSpinBox()->maximum(), 0);

        view.setResult(std::make_shared<const AttentionResult>(test::toyResult(true)));
        view.select(0, 1);
        QCOMPARE(row(5, 0, 1), (QStringList{"4.00", "16.00", "−∞"}));  // q1 = (2, 2, 2), k1 = (4, 4, 0)

        keepPicture(view, QStringLiteral("walkthrough-toy.png"));
    }

    // The default sentence at the default sizes: positions shown, the breakdown is T x 64.
    void widgetDefaultSentence()
    {
        WalkthroughView view;
        view.resize(1200, 900);
        auto result = std::make_shared<const AttentionResult>(test::sentenceResult(512, 8));
        view.setResult(result);
        view.select(2, 1);
        QVERIFY(view.tableModel(1, 1));  // PE
        QCOMPARE(view.tableModel(1, 1)->table().values, result->input.positional);
        QCOMPARE(view.breakdown()->products().values.rows(), qsizetype(result->seqLen()));
        QCOMPARE(view.breakdown()->products().values.cols(), 64);
        QCOMPARE(view.tableModel(9, 0)->columnCount(), 512);
        QCOMPARE(view.tableModel(9, 0)->headerData(128, Qt::Horizontal).toString(), QStringLiteral("h2:0"));
        keepPicture(view, QStringLiteral("walkthrough-default.png"));
    }

    // User choices emit selectionChanged once; select() from outside does not emit.
    void selectionSignals()
    {
        WalkthroughView view;
        view.resize(1000, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto result = std::make_shared<const AttentionResult>(test::sentenceResult(32, 4));
        view.setResult(result);
        QSignalSpy spy(&view, &WalkthroughView::selectionChanged);

        view.headSpinBox()->setValue(2);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst(), (QList<QVariant>{2, 0}));
        view.queryComboBox()->setCurrentIndex(4);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst(), (QList<QVariant>{2, 4}));
        QCOMPARE(view.tableModel(6, 0)->table().highlighted_row, 4);
        QCOMPARE(view.tableModel(6, 0)->table().values, result->trace.probabilities[2]);

        // From the heatmaps: no signal back, the selectors and highlights follow.
        view.select(3, 7);
        QCOMPARE(spy.count(), 0);
        QCOMPARE(view.head(), 3);
        QCOMPARE(view.query(), 7);
        QCOMPARE(view.headSpinBox()->value(), 3);
        QCOMPARE(view.queryComboBox()->currentIndex(), 7);
        for (int step : {1, 3, 6, 8, 9, 10})
            QCOMPARE(view.tableModel(step, 0)->table().highlighted_row, 7);
        QCOMPARE(view.tableModel(9, 0)->table().highlighted_first_column, 3 * 8);
        view.select(99, -5);  // clamped
        QCOMPARE(view.head(), 3);
        QCOMPARE(view.query(), 0);
        QCOMPARE(spy.count(), 0);

        // A click on a row of a table whose rows are queries follows that query.
        QTableView* weights = view.tableView(6, 0);
        QVERIFY(weights && weights->isVisible());
        weights->scrollToTop();
        const QModelIndex cell = weights->model()->index(2, 1);
        QTest::mouseClick(weights->viewport(), Qt::LeftButton, {}, weights->visualRect(cell).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst(), (QList<QVariant>{3, 2}));
        // Rows of K are keys, not queries: a click there changes nothing.
        QTableView* keys = view.tableView(2, 1);
        QTest::mouseClick(keys->viewport(), Qt::LeftButton, {}, keys->visualRect(keys->model()->index(5, 0)).center());
        QCOMPARE(spy.count(), 0);

        // A shorter sentence keeps the head and clamps the query.
        view.setResult(
            std::make_shared<const AttentionResult>(test::sentenceResult(32, 4, 0, false, QStringLiteral("a b"))));
        QCOMPARE(view.head(), 3);
        QCOMPARE(view.query(), 1 < 2 ? 2 - 1 : 0);
        QCOMPARE(view.queryComboBox()->count(), 2);
        QCOMPARE(spy.count(), 0);
        keepPicture(view, QStringLiteral("walkthrough-sentence.png"));
    }

    // Two views wired both ways, as the walkthrough and the heatmaps are: a choice in one moves
    // the other, each emits once, nothing loops.
    void syncBothWays()
    {
        auto result = std::make_shared<const AttentionResult>(test::sentenceResult(32, 4));
        WalkthroughView a, b;
        a.setResult(result);
        b.setResult(result);
        connect(&a, &WalkthroughView::selectionChanged, &b, &WalkthroughView::select);
        connect(&b, &WalkthroughView::selectionChanged, &a, &WalkthroughView::select);
        QSignalSpy spy_a(&a, &WalkthroughView::selectionChanged);
        QSignalSpy spy_b(&b, &WalkthroughView::selectionChanged);
        a.headSpinBox()->setValue(1);
        QCOMPARE(b.head(), 1);
        b.queryComboBox()->setCurrentIndex(6);
        QCOMPARE(a.query(), 6);
        QCOMPARE(spy_a.count(), 1);
        QCOMPARE(spy_b.count(), 1);
        QCOMPARE(a.tableModel(3, 0)->table().highlighted_row, 6);
    }

    // Building the ten steps for one head at T = 512, d_model = 512, 8 heads (four T x T tables).
    void benchmarkBuild()
    {
        QStringList words;
        for (int i = 0; i < 512; ++i)
            words.append(QStringLiteral("w%1").arg(i));
        const AttentionResult result = test::sentenceResult(512, 8, 0, true, words.join(u' '));
        QCOMPARE(result.seqLen(), 512);
        int query = 0;
        QBENCHMARK
        {
            const WalkthroughData walk = WalkthroughData::build(result, 3, query++ % 512);
            QCOMPARE(walk.step(5).tables[0].values.rows(), 512);
        }
    }

    // The wheel over a table scrolls the table while it can scroll that way, then the page;
    // it never turns into a sideways scroll of the table.
    void wheelOverATableScrollsThePage()
    {
        WalkthroughView view;
        view.resize(900, 500);
        view.setResult(std::make_shared<const AttentionResult>(test::sentenceResult(
            32, 4, 0, false, QStringLiteral("one two three four five six seven eight nine ten eleven"))));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QScrollBar* page = view.findChild<QScrollArea*>()->verticalScrollBar();
        QVERIFY(page->maximum() > 0);
        QTableView* table = view.tableView(1, 0);  // X: one row per token, 11 > 8 visible rows
        QVERIFY(table);
        QScrollBar* rows = table->verticalScrollBar();
        QScrollBar* across = table->horizontalScrollBar();
        QVERIFY(rows->maximum() > 0);
        const auto wheel = [&](int angle) {
            const QPointF at(table->viewport()->rect().center());
            QWheelEvent event(at, table->viewport()->mapToGlobal(at), QPoint(), QPoint(0, angle), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(table->viewport(), &event);
        };
        rows->setValue(rows->minimum());
        page->setValue(0);
        const int across_before = across->value();
        wheel(-120);  // down: the table has rows below
        QVERIFY(rows->value() > rows->minimum());
        QCOMPARE(page->value(), 0);
        rows->setValue(rows->maximum());
        wheel(-120);  // down at the table's end: the page
        QVERIFY(page->value() > 0);
        QCOMPARE(rows->value(), rows->maximum());
        QCOMPARE(across->value(), across_before);
        const int page_down = page->value();
        rows->setValue(rows->minimum());
        wheel(120);  // up at the table's top: the page
        QVERIFY(page->value() < page_down);
        // A table without rows to scroll passes every wheel step to the page.
        view.setResult(std::make_shared<const AttentionResult>(test::toyResult()));  // 3 rows: nothing to scroll
        QTableView* weights = view.tableView(1, 0);
        QVERIFY(weights && weights->verticalScrollBar()->maximum() == 0);
        QVERIFY(page->maximum() > 0);
        page->setValue(0);
        const QPointF at(weights->viewport()->rect().center());
        QWheelEvent down(at, weights->viewport()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                         Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(weights->viewport(), &down);
        QVERIFY(page->value() > 0);
    }

    // The formulas beside the step titles take their colour from the palette, readable on a dark one.
    void formulaCaptionsFollowThePalette_data()
    {
        QTest::addColumn<QColor>("text");
        QTest::addColumn<QColor>("background");
        QTest::newRow("light") << QColor(Qt::black) << QColor(0xef, 0xef, 0xef);
        QTest::newRow("dark") << QColor(0xf0, 0xf0, 0xf0) << QColor(0x20, 0x20, 0x20);
    }
    void formulaCaptionsFollowThePalette()
    {
        QFETCH(QColor, text);
        QFETCH(QColor, background);
        WalkthroughView view;
        QPalette palette = view.palette();
        palette.setColor(QPalette::WindowText, text);
        palette.setColor(QPalette::Window, background);
        view.setPalette(palette);
        view.setResult(std::make_shared<const AttentionResult>(test::toyResult()));
        const auto luminance = [](const QColor& c) {
            const auto linear = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
        };
        int headers = 0;
        static const QRegularExpression colour(QStringLiteral("<i style=\"color:(#[0-9a-fA-F]{6})\">"));
        for (QLabel* label : view.findChildren<QLabel*>()) {
            const auto match = colour.match(label->text());
            if (!match.hasMatch())
                continue;
            ++headers;
            const double a = luminance(QColor(match.captured(1))) + 0.05, b = luminance(background) + 0.05;
            // 4.5: WCAG AA contrast for normal text; the old fixed #4a5663 gave 2.2 on #202020.
            QVERIFY2(std::max(a, b) / std::min(a, b) >= 4.5, qPrintable(match.captured(1)));
        }
        QCOMPARE(headers, WalkthroughData::kStepCount);
    }
};

REGISTER_TEST_SUITE(TestWalkthrough, QApplication)
#include "test_walkthrough.moc"
