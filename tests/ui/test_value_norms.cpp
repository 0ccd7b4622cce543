// The weights <-> norms switch in a real MainWindow on a whole model (the tiny GPT-2 fixture):
// its action (View › Heatmaps, Ctrl+Shift+N), the grid's and One head's values against the core's
// value-weighted attention A_ij ||f^h(x_j)|| (AttentionNorms) of the run in hand, no new forward
// pass, the titles saying which is drawn, the Model and Rollout tabs, the setting kept, and a
// long input's reason for drawing the weights shown beside the switch.
#include "core/lens/AttentionNorms.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelSession.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AttentionKindSwitch.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/rollout/RolloutView.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

using namespace attn;
using namespace attn::testing;
using attn::test::expectedOf;

namespace {

// The largest |shown - A_ij n_j| over every head of the grid, relative to the largest norm.
double gridDifference(HeadsGrid* grid, const ModelRun& run, const Matrix& norms, int layer)
{
    double worst = 0;
    double largest = 1e-30;
    for (int head = 0; head < grid->headCount(); ++head) {
        const Matrix& shown = grid->plot(head)->values();  // (T, T)
        const Matrix want = (run.attention.head(layer, head).array().rowwise() * norms.row(head).array()).matrix();
        if (shown.rows() != want.rows() || shown.cols() != want.cols())
            return 1e9;
        largest = std::max(largest, double(want.maxCoeff()));
        worst = std::max(worst, double((shown - want).cwiseAbs().maxCoeff()));
    }
    return worst / largest;
}

}  // namespace

class TestValueNorms : public attn::test::ModelWindowTest {
    Q_OBJECT

private slots:
    void switchDrawsNormsInEveryView()
    {
        const QJsonObject expected = expectedOf("gpt2-tiny");
        QVERIFY(!expected.isEmpty());
        open(modelFixture("gpt2-tiny"), expected["sentence"].toString());
        QVERIFY(controller()->hasModel());
        const auto run = controller()->modelRun();
        const auto session = controller()->model();
        auto norms = AttentionNorms::ofModel(session->config(), session->model().weights(), *run);
        QVERIFY(norms);

        QAction* action = m_window->actions()->get(ActionId::ValueNorms);
        QVERIFY(action && action->isCheckable() && !action->isChecked());
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
        m_window->setCurrentView(View::Grid);
        HeadsGrid* grid = m_window->headsGrid();
        QVERIFY(grid->caption().startsWith("weights"));

        QSignalSpy passes(controller(), &AttentionController::resultReady);
        action->trigger();  // as the menu or the shortcut
        QVERIFY(m_window->attentionKind()->norms());
        // Float32 products against the same products: a few ulps of the largest norm.
        const double difference = gridDifference(grid, *run, (*norms)[0], 0);
        QVERIFY2(difference <= 1e-6, qPrintable(QString::number(difference)));
        QVERIFY2(grid->caption().startsWith("norms ||A f(x)||"), qPrintable(grid->caption()));
        QCOMPARE(passes.count(), 0);              // only the norms computed
        QCOMPARE(controller()->modelRun(), run);  // the same pass

        m_window->setCurrentView(View::Head);
        HeadView* head = m_window->headView();
        QVERIFY2(head->plot()->title().contains("norms ||A f(x)||"), qPrintable(head->plot()->title()));
        const Matrix want0 = (run->attention.head(0, 0).array().rowwise() * (*norms)[0].row(0).array()).matrix();
        QVERIFY((head->plot()->values() - want0).cwiseAbs().maxCoeff() <= 1e-6 * std::max(1.0f, want0.maxCoeff()));

        // Another layer: its own norms, still without a forward pass.
        QVERIFY(controller()->setLayer(1));
        controller()->waitForIdle();
        m_window->setCurrentView(View::Grid);
        const double layer1 = gridDifference(grid, *run, (*norms)[1], 1);
        QVERIFY2(layer1 <= 1e-6, qPrintable(QString::number(layer1)));

        // The Model and Rollout tabs draw the run weighed (the rollout's rows normalised).
        const auto& model_run = m_window->viewTabs()->modelView()->canvas()->gridPainter().run();
        QVERIFY(model_run && model_run->value_norms);
        QCOMPARE(model_run->attention.at(1, 0, 3, 2), run->attention.at(1, 0, 3, 2) * (*norms)[1](0, 2));
        QVERIFY(m_window->viewTabs()->rolloutView()->painter().run()->value_norms);

        // Back to the weights: the views draw the run's weights again.
        action->trigger();
        QVERIFY(!m_window->attentionKind()->norms());
        QVERIFY(grid->caption().startsWith("weights"));
        QVERIFY(grid->plot(0)->values() == run->attention.head(1, 0));
        QVERIFY(!m_window->viewTabs()->modelView()->canvas()->gridPainter().run()->value_norms);
    }

    // A long input whose heads are not all kept cannot draw norms: the weights are drawn, the
    // switch stays on and says why beside its button; a shorter input draws the norms again.
    void aLongInputSaysWhyBesideTheSwitch()
    {
        AttentionController* controller = m_window->controller();
        controller->setLongRouteBytes(0);  // so that 1,100 tokens take the long route
        RunSettings config = controller->config();
        config.d_model = 16;
        config.num_heads = 4;
        QVERIFY(controller->setConfig(config));
        controller->waitForIdle();
        AttentionKindSwitch* kind = m_window->attentionKind();
        QVERIFY(m_window->viewTabs()->cornerWidget(Qt::TopRightCorner)->isAncestorOf(kind->button()));
        kind->button()->click();
        QVERIFY(kind->norms());
        QVERIFY(kind->problemShown().isEmpty());
        QVERIFY(m_window->headsGrid()->caption().startsWith("norms"));

        QStringList words;
        for (int i = 0; i < 1100; ++i)
            words << QStringLiteral("w%1").arg((i * 7) % 53);
        m_window->sentenceEdit()->setText(words.join(u' '));
        controller->waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(controller->result()->seqLen(), 1100);
        QVERIFY2(kind->problemShown().contains(QStringLiteral("keeps only one")), qPrintable(kind->problemShown()));
        QVERIFY(kind->problemLabel()->isVisibleTo(m_window.get()));
        QVERIFY(kind->norms());  // the choice stays
        QVERIFY(m_window->actions()->get(ActionId::ValueNorms)->isChecked());
        QVERIFY2(m_window->headsGrid()->caption().startsWith("weights"), qPrintable(m_window->headsGrid()->caption()));

        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat"));
        controller->waitForIdle();
        QCoreApplication::processEvents();
        QVERIFY(kind->problemShown().isEmpty());
        QVERIFY(!kind->problemLabel()->isVisibleTo(m_window.get()));
        QVERIFY(m_window->headsGrid()->caption().startsWith("norms"));
    }

    void switchIsRemembered()
    {
        m_window->actions()->get(ActionId::ValueNorms)->trigger();
        m_window->saveSettings();
        QVERIFY(m_settings->valueNorms());
        // A new window on the same settings starts drawing norms.
        m_window = std::make_unique<MainWindow>(m_settings.get());
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(m_window->attentionKind()->norms());
        QVERIFY(m_window->actions()->get(ActionId::ValueNorms)->isChecked());
        controller()->waitForIdle();
        // The example weights of a new window (no model): the settings' layer, drawn as norms.
        QVERIFY2(m_window->headsGrid()->caption().startsWith("norms"), qPrintable(m_window->headsGrid()->caption()));
    }
};

REGISTER_TEST_SUITE(TestValueNorms, QApplication)
#include "test_value_norms.moc"
