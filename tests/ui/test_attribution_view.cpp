// The Attribution tab in the real window, offscreen, on the tiny fixture models: its heatmap holds
// LogitAttribution's numbers for the run the window made, the sum line, a bad token shown beside
// its field with the last good picture kept, a click on a head opening it in One head, and the
// neutral message on a post-norm (BERT-family) model.
#include "core/lens/LogitAttribution.h"
#include "core/model/ModelSession.h"
#include "core/model/TokenPredictions.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/attribution/AttributionView.h"
#include "ui/views/heads/HeadView.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::test;
using attn::testing::modelFixture;

class TestAttributionView : public ModelWindowTest {
    Q_OBJECT

    AttributionView* view() const { return m_window->viewTabs()->attributionView(); }

    // Opens the model and brings the Attribution tab up with its first picture.
    void openOnTab(const QString& name, const QString& sentence)
    {
        open(modelFixture(name), sentence);
        m_window->setCurrentView(View::Attribution);
        QTRY_VERIFY_WITH_TIMEOUT(view()->painter().result() != nullptr, 20000);
    }

    // Types into a token field and waits for the view's answer (a new picture, or an error only).
    static void typeInto(QComboBox* box, const QString& text) { box->setEditText(text); }

private slots:
    void heatmapHoldsTheAttribution_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("gpt2-tiny") << "gpt2-tiny";
        QTest::newRow("llama-tiny") << "llama-tiny";
    }

    // The picture's numbers are LogitAttribution's for the window's run at the last position, the
    // target the head's top prediction there; the parts add up to the logit (the core's 1e-4 relative).
    void heatmapHoldsTheAttribution()
    {
        QFETCH(QString, model);
        openOnTab(model, QStringLiteral("the cat sat on the mat"));
        const auto session = controller()->model();
        const auto run = controller()->modelRun();
        const int last = run->seqLen() - 1;
        QCOMPARE(view()->positionBox()->value(), last);
        auto top =
            TokenPredictions::topK(session->config(), session->model().weights(), run->last_hidden_state, {last}, 1);
        QVERIFY(top);
        auto want = LogitAttribution::compute(session->config(), session->model().weights(), *run, last,
                                              MetricTokens{top->front().ids.front(), std::nullopt});
        QVERIFY(want);
        const auto& got = *view()->painter().result();
        QCOMPARE(got.num_layers, want->num_layers);
        QCOMPARE(got.num_heads, want->num_heads);
        QCOMPARE(got.tokens.target, want->tokens.target);
        QCOMPARE(got.heads, want->heads);  // the same function on the same run: identical
        QCOMPARE(got.mlp, want->mlp);
        QVERIFY2(std::abs(got.sum() - got.logit) <= 1e-4 * std::max(1.0, std::abs(got.logit)),
                 qPrintable(AttributionPainter::sumLine(got)));
        QVERIFY(AttributionPainter::sumLine(got).startsWith(QStringLiteral("parts sum to ")));
        QVERIFY(AttributionPainter::sumLine(got).contains(QStringLiteral("; the model's logit is ")));

        // A foil typed as an id: the logit difference.
        QSignalSpy computed(view(), &AttributionView::computed);
        typeInto(view()->foilBox(), QStringLiteral("3"));
        QTRY_VERIFY_WITH_TIMEOUT(computed.count() >= 1 && view()->painter().result()->tokens.foil == 3, 20000);
        QVERIFY(AttributionPainter::sumLine(*view()->painter().result())
                    .contains(QStringLiteral("; the model's logit difference is ")));
    }

    // A token that is no vocabulary entry: its error beside the target field, the last good
    // picture kept; a good one again clears the error.
    void badTargetKeepsTheLastResult()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat"));
        const auto good = view()->painter().result();
        typeInto(view()->targetBox(), QStringLiteral("no-such-token-at-all"));
        QVERIFY(view()->targetError()->isVisible());
        QVERIFY2(view()->targetError()->text().contains(QStringLiteral("no-such-token-at-all")),
                 qPrintable(view()->targetError()->text()));
        QTest::qWait(200);
        QCOMPARE(view()->painter().result(), good);

        QSignalSpy computed(view(), &AttributionView::computed);
        typeInto(view()->targetBox(), QStringLiteral("7"));
        QVERIFY(!view()->targetError()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(computed.count() >= 1 && view()->painter().result()->tokens.target == 7, 20000);
    }

    // The target and foil written as the rest of the window writes tokens ("␣cat", never "Ġcat"),
    // in the fields and in the picture's title, and typed that way too.
    void tokensAsTheWindowWritesThem()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat on the"));
        QTRY_VERIFY_WITH_TIMEOUT(view()->targetBox()->count() > 0, 20000);
        const auto model = controller()->model();
        for (QComboBox* box : {view()->targetBox(), view()->foilBox()})
            for (int i = 0; i < box->count(); ++i) {
                QVERIFY2(!box->itemText(i).contains(QChar(0x0120)), qPrintable(box->itemText(i)));
                QCOMPARE(box->itemText(i), model->tokenLabels({model->tokenText(box->itemData(i).toInt())}).value(0));
            }
        QVERIFY2(!view()->painter().metric().contains(QChar(0x0120)), qPrintable(view()->painter().metric()));

        QSignalSpy computed(view(), &AttributionView::computed);
        typeInto(view()->targetBox(), QStringLiteral("\u2423the"));
        typeInto(view()->foilBox(), QStringLiteral("\u0120cat"));  // the vocabulary's spelling still works
        QVERIFY(!view()->targetError()->isVisible());
        QVERIFY(!view()->foilError()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(view()->painter().result() && view()->painter().result()->tokens.target == 262 &&
                                     view()->painter().result()->tokens.foil == std::optional<int>(3797),
                                 20000);
        QVERIFY2(view()->painter().metric().startsWith(QStringLiteral("logit(\u2423the) \u2212 logit(\u2423cat)")),
                 qPrintable(view()->painter().metric()));
    }

    // A click on a head's cell opens that layer and head in One head.
    void clickingAHeadOpensIt()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat on the mat"));
        QWidget* canvas = view()->canvas();
        const int layer = 1, head = 1;
        QPoint point;
        for (int y = 0; y < canvas->height() && point.isNull(); y += 2)
            for (int x = 0; x < canvas->width(); x += 2)
                if (view()->painter().headAt(canvas->rect(), QPointF(x, y)) == std::pair{layer, head}) {
                    point = QPoint(x + 4, y + 4);
                    break;
                }
        QVERIFY(!point.isNull());
        QTest::mouseClick(canvas, Qt::LeftButton, {}, point);
        controller()->waitForIdle();
        QTRY_COMPARE(m_window->currentView(), View::Head);
        QCOMPARE(controller()->selectedLayer(), layer);
        QCOMPARE(m_window->viewTabs()->headView()->head(), head);
    }

    // A post-norm model: no picture, a message saying why.
    void bertShowsWhyNot()
    {
        open(modelFixture(QStringLiteral("bert-tiny")), QStringLiteral("hello world"));
        m_window->setCurrentView(View::Attribution);
        QTRY_VERIFY(view()->painter().message().contains(QStringLiteral("pre-norm")));
        QVERIFY(!view()->painter().result());
    }
};

REGISTER_TEST_SUITE(TestAttributionView, QApplication)
#include "test_attribution_view.moc"
