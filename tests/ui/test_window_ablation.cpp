// Head ablation in the real window, offscreen, on the tiny fixture models: a head right-clicked
// on the Model tab's grid offers the menu; ablating it runs the model again with the head's z
// replaced (the run the command line's --ablate makes), the predictions follow, the grid marks the
// head and its caption says so (also in the exported picture); one click restores the plain run.
// The Ablation scan tab: AblationScan's numbers for the window's run, a bad token beside its
// field with the last picture kept, a cancelled scan said beside the picture, a click ablating.
#include "core/lens/AblationScan.h"
#include "core/model/ForwardIntervention.h"
#include "core/model/ModelSession.h"
#include "core/model/TokenPredictions.h"
#include "core/model/TransformerForward.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/HeadAblationMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/AblatedHeads.h"
#include "ui/views/ablation/AblationView.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QProgressBar>
#include <QSignalSpy>
#include <QtTest>

using namespace attn;
using namespace attn::test;
using attn::testing::modelFixture;

class TestWindowAblation : public ModelWindowTest {
    Q_OBJECT

    HeadAblationMenu* ablationMenu() const { return m_window->findChild<HeadAblationMenu*>(); }

    // Triggers the menu entry of head (layer, head) whose text starts with `text`, and waits for
    // the run it asks for.
    void choose(int layer, int head, const QString& text)
    {
        QMenu menu;
        ablationMenu()->fill(menu, layer, head);
        QAction* chosen = nullptr;
        for (QAction* action : menu.actions())
            if (action->text().startsWith(text))
                chosen = action;
        QVERIFY2(chosen, qPrintable(text));
        QVERIFY(chosen->isEnabled());
        chosen->trigger();
        controller()->waitForIdle();
    }

    // The run of the open model over its ids with these heads ablated, as --ablate makes it.
    ModelRun expectedRun(const std::vector<AblatedHead>& heads) const
    {
        const auto session = controller()->model();
        ForwardIntervention ablation;
        for (const AblatedHead& head : heads)
            ablation.ablateHead(head.layer, head.head, head.mode);
        auto run = TransformerForward::runIntervened(session->config(), session->model().weights(),
                                                     controller()->modelRun()->token_ids, 0, ablation);
        if (!run)
            qFatal("%s", qPrintable(run.error()));
        return std::move(run).value();
    }

    AblationView* scanView() const { return dynamic_cast<AblationView*>(m_window->viewTabs()->page(View::Ablation)); }

    void openOnScanTab(const QString& name)
    {
        open(modelFixture(name), "the cat sat on the mat");
        m_window->setCurrentView(View::Ablation);
        QTRY_VERIFY_WITH_TIMEOUT(scanView()->painter().result() != nullptr, 20000);
    }

private slots:
    void scanHoldsTheAblationScan_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("gpt2-tiny") << "gpt2-tiny";
        QTest::newRow("llama-tiny") << "llama-tiny";
    }

    // The tab's numbers are AblationScan's for the window's run at the last position, the target
    // the top prediction there: the same function on the same run, identical.
    void scanHoldsTheAblationScan()
    {
        QFETCH(QString, model);
        openOnScanTab(model);
        const auto session = controller()->model();
        auto plain = TransformerForward::run(session->config(), session->model().weights(),
                                             controller()->modelRun()->token_ids, 0, true);
        QVERIFY(plain);
        const int last = plain->seqLen() - 1;
        auto top =
            TokenPredictions::topK(session->config(), session->model().weights(), plain->last_hidden_state, {last}, 1);
        QVERIFY(top);
        auto want = AblationScan::run(session->config(), session->model().weights(), *plain, last,
                                      MetricTokens{top->front().ids.front(), std::nullopt}, HeadAblation::Zero);
        QVERIFY(want);
        const auto& got = *scanView()->painter().result();
        QCOMPARE(got.num_layers, want->num_layers);
        QCOMPARE(got.num_heads, want->num_heads);
        QCOMPARE(got.plain, want->plain);
        QCOMPARE(got.effects, want->effects);
        QVERIFY(!scanView()->progressBar()->isVisible());

        // Mean ablation: the scan again in that mode.
        scanView()->modeBox()->setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(scanView()->painter().result()->mode == HeadAblation::Mean, 20000);
    }

    // A token that is not in the vocabulary: its error beside the field, the last picture kept.
    void badTokenKeepsTheLastPicture()
    {
        openOnScanTab("gpt2-tiny");
        const auto before = scanView()->painter().result();
        scanView()->metricChooser()->targetBox()->setEditText(QStringLiteral("99999999"));
        QTRY_VERIFY(scanView()->metricChooser()->targetError()->isVisible());
        QVERIFY(!scanView()->metricChooser()->targetError()->text().isEmpty());
        QCOMPARE(scanView()->painter().result(), before);
    }

    // A cancelled scan returns the cancellation, which the tab says beside the picture it keeps.
    void cancelledScanSaysSo()
    {
        openOnScanTab("gpt2-tiny");
        AblationView::Job job;
        job.model = controller()->model();
        job.run = controller()->modelRun();
        job.position = job.run->seqLen() - 1;
        job.cancel->store(true);
        const AblationView::Outcome outcome = AblationView::compute(job);
        QVERIFY(!outcome.scan);
        QCOMPARE(outcome.scan.error(), AblationScan::cancelledMessage());
    }

    // A click on a cell ablates that head in the window's run; the tab marks it.
    void clickAblatesTheHead()
    {
        openOnScanTab("gpt2-tiny");
        QWidget* canvas = scanView()->canvas();
        const QPointF at = scanView()->painter().cellRect(QRectF(canvas->rect()), 1, 0).center();
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at.toPoint());
        controller()->waitForIdle();
        QCOMPARE(controller()->ablatedHeads().size(), size_t(1));
        QCOMPARE(controller()->ablatedHeads().front(), (AblatedHead{1, 0, HeadAblation::Zero}));
        QTRY_VERIFY(scanView()->painter().title().contains(QStringLiteral("1 head ablated")));
    }

    void menuOffersAblationAndRestore()
    {
        open(modelFixture("gpt2-tiny"), "the cat sat on the mat");
        QVERIFY(ablationMenu());
        QMenu menu;
        ablationMenu()->fill(menu, 1, 0);
        QStringList texts;
        for (QAction* action : menu.actions())
            if (!action->isSeparator())
                texts << action->text();
        QCOMPARE(texts, (QStringList{"Ablate head 1:0 (zero)", "Ablate head 1:0 (mean)", "Restore head 1:0",
                                     "Restore all heads"}));
        QVERIFY(!menu.actions().at(3)->isEnabled());  // nothing to restore yet
    }

    // A right click on a thumbnail of the Model tab asks for that head's menu.
    void rightClickOnTheGridAsksForTheHead()
    {
        open(modelFixture("gpt2-tiny"), "the cat sat on the mat");
        m_window->setCurrentView(View::Model);
        ModelView* view = m_window->viewTabs()->modelView();
        QTRY_VERIFY(view->hasModel());
        ModelGridCanvas* canvas = view->canvas();
        QSignalSpy asked(view, &ModelView::headMenuRequested);
        const QPoint at = canvas->thumbnailRect(1, 1).center();
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, canvas->mapToGlobal(at));
        QCoreApplication::sendEvent(canvas, &event);
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.front().at(0).toInt(), 1);
        QCOMPARE(asked.front().at(1).toInt(), 1);
    }

    void ablatingRunsTheModelAgainAndRestoring_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("mode");
        QTest::newRow("gpt2-tiny zero") << "gpt2-tiny" << int(HeadAblation::Zero);
        QTest::newRow("gpt2-tiny mean") << "gpt2-tiny" << int(HeadAblation::Mean);
        QTest::newRow("llama-tiny zero") << "llama-tiny" << int(HeadAblation::Zero);
    }

    // Ablating a head gives the run --ablate gives (the same function: identical), the predictions
    // follow it, the grid marks the head; Restore all heads gives the plain run back.
    void ablatingRunsTheModelAgainAndRestoring()
    {
        QFETCH(QString, model);
        QFETCH(int, mode);
        open(modelFixture(model), "the cat sat on the mat");
        const Matrix plain = controller()->modelRun()->last_hidden_state;
        const auto plain_predictions = controller()->modelPredictions();
        QSignalSpy changed(controller(), &AttentionController::ablationChanged);

        choose(1, 0, mode == int(HeadAblation::Zero) ? "Ablate head 1:0 (zero)" : "Ablate head 1:0 (mean)");
        QCOMPARE(changed.size(), 1);
        QCOMPARE(controller()->ablatedHeads().size(), size_t(1));
        const auto run = controller()->modelRun();
        QCOMPARE(run->replaced_heads.size(), size_t(1));
        const ModelRun want = expectedRun({{1, 0, HeadAblation(mode)}});
        QVERIFY(run->last_hidden_state == want.last_hidden_state);
        QVERIFY(!(run->last_hidden_state == plain));
        QCOMPARE(AblatedHeads::caption(*run), QStringLiteral("1 head ablated"));

        // The predictions are the ablated run's.
        QTRY_VERIFY(!controller()->modelPredictions().empty());
        const auto session = controller()->model();
        const int last = run->seqLen() - 1;
        auto top =
            TokenPredictions::topK(session->config(), session->model().weights(), want.last_hidden_state, {last}, 5);
        QVERIFY(top);
        QCOMPARE(controller()->modelPredictions().back().ids, top->front().ids);

        // A second head: two marked; the menu's check follows the mode.
        choose(0, 1, "Ablate head 0:1 (zero)");
        QCOMPARE(controller()->modelRun()->replaced_heads.size(), size_t(2));
        QCOMPARE(AblatedHeads::caption(*controller()->modelRun()), QStringLiteral("2 heads ablated"));
        choose(0, 1, "Restore head 0:1");
        QCOMPARE(controller()->modelRun()->replaced_heads.size(), size_t(1));

        choose(1, 0, "Restore all heads");
        QVERIFY(controller()->ablatedHeads().empty());
        QVERIFY(controller()->modelRun()->replaced_heads.empty());
        QVERIFY(controller()->modelRun()->last_hidden_state == plain);
        QTRY_VERIFY(!controller()->modelPredictions().empty());
        QCOMPARE(controller()->modelPredictions().back().ids, plain_predictions.back().ids);
    }

    // The grid's picture (the export's too) crosses the ablated head out in the mark's red and
    // says how many heads are ablated.
    void gridMarksTheAblatedHead()
    {
        open(modelFixture("gpt2-tiny"), "the cat sat on the mat");
        m_window->setCurrentView(View::Model);
        ModelView* view = m_window->viewTabs()->modelView();
        choose(1, 1, "Ablate head 1:1 (zero)");
        QTRY_VERIFY(AblatedHeads::any(*view->canvas()->gridPainter().run()));
        view->computeNow();
        const QSize size = view->pictureSize();
        QImage image(size, QImage::Format_ARGB32);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            view->renderPicture(&painter, QRectF(QPointF(0, 0), size));
        }
        const auto layout = view->canvas()->gridPainter().layoutFor(size);
        const int heads = view->canvas()->gridPainter().numHeads();
        const QRectF box = layout.thumbnails[1 * heads + 1];
        // The crossing of the mark's two lines is at the box's centre; an unmarked head's is not red.
        const QColor marked = image.pixelColor(box.center().toPoint());
        QVERIFY2(marked.red() > 150 && marked.green() < 90 && marked.blue() < 90, qPrintable(marked.name()));
        const QRectF other = layout.thumbnails[0];
        const QColor plain = image.pixelColor(other.center().toPoint());
        QVERIFY2(!(plain.red() > 150 && plain.green() < 90 && plain.blue() < 90), qPrintable(plain.name()));
    }

    // Another model opened clears the ablation.
    void anotherModelClearsTheAblation()
    {
        open(modelFixture("gpt2-tiny"), "the cat sat on the mat");
        choose(0, 0, "Ablate head 0:0 (mean)");
        QCOMPARE(controller()->ablatedHeads().size(), size_t(1));
        open(modelFixture("llama-tiny"), "the cat sat on the mat");
        QVERIFY(controller()->ablatedHeads().empty());
        QVERIFY(controller()->modelRun()->replaced_heads.empty());
    }
};

REGISTER_TEST_SUITE(TestWindowAblation, QApplication)
#include "test_window_ablation.moc"
