// The lines view: one line per weight above the threshold, the hover that keeps a token's lines,
// the all-heads overlay with its toggles, and the lines' opacity and colours.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "tests/support/DefaultResult.h"
#include "tests/support/TestSuite.h"
#include "ui/views/lines/LinesCanvas.h"
#include "ui/views/lines/LinesView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QTest>

using namespace attn;

class TestLinesView : public QObject {
    Q_OBJECT

private slots:
    void linesFollowTheWeightsAndTheHover()
    {
        LinesCanvas canvas;
        canvas.resize(600, 500);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        const auto result = defaultResult(true);
        canvas.setResult(result);
        canvas.setHead(0);
        const int tokens = result->seqLen();
        // Causal: query i has i + 1 keys; a line for each weight above the drawing threshold.
        const Matrix& w = result->trace.probabilities[0];
        const float strongest = w.maxCoeff();
        const float threshold = LinesCanvas::kMinRelativeWeight * strongest;
        const int expected = int((w.array() >= threshold).count());
        QCOMPARE(canvas.visibleLineCount(), expected);
        QVERIFY(expected <= tokens * (tokens + 1) / 2);

        // Hover the query column at row 0: only its one line (to key 0) is left.
        QSignalSpy focus(&canvas, &LinesCanvas::focusTokenChanged);
        const QRectF rect(canvas.rect());
        bool found = false;
        for (int x = 0; x < 600 && !found; x += 2) {
            for (int y = 0; y < 500 && !found; y += 2) {
                const auto [side, index] = canvas.tokenAt(QPointF(x, y), rect);
                if (side == LinesCanvas::Side::Query && index == 0) {
                    QTest::mouseMove(&canvas, QPoint(x, y));
                    found = true;
                }
            }
        }
        QVERIFY(found);
        QCOMPARE(canvas.focusSide(), LinesCanvas::Side::Query);
        QCOMPARE(canvas.focusIndex(), 0);
        QCOMPARE(focus.count(), 1);
        QCOMPARE(canvas.visibleLineCount(), 1);
        // The last key is seen only by the last query in a causal head.
        canvas.setFocusToken(LinesCanvas::Side::Key, tokens - 1);
        QCOMPARE(canvas.visibleLineCount(), w(tokens - 1, tokens - 1) >= threshold ? 1 : 0);
        canvas.setFocusToken(LinesCanvas::Side::None, 5);
        QCOMPARE(canvas.focusIndex(), -1);
        QCOMPARE(canvas.visibleLineCount(), expected);
    }

    void allHeadsWithToggles()
    {
        LinesView view;
        view.resize(700, 500);
        const auto result = defaultResult();
        view.setResult(result);
        QCOMPARE(view.headChooser()->count(), 9);  // all heads + 8
        QVERIFY(view.headToggle(7) != nullptr);
        QVERIFY(view.headToggle(8) == nullptr);
        QSignalSpy head_changed(&view, &LinesView::headChanged);
        view.setHead(LinesCanvas::kAllHeads);
        QCOMPARE(head_changed.count(), 1);
        QCOMPARE(view.canvas()->head(), LinesCanvas::kAllHeads);
        const int all = view.canvas()->visibleLineCount();
        view.headToggle(0)->setChecked(false);
        QVERIFY(!view.canvas()->isHeadVisible(0));
        const int without_0 = view.canvas()->visibleLineCount();
        QVERIFY(without_0 < all);
        for (int h = 1; h < 8; ++h)
            view.headToggle(h)->setChecked(false);
        QCOMPARE(view.canvas()->visibleLineCount(), 0);
        view.setHead(4);
        QCOMPARE(view.canvas()->head(), 4);
        QVERIFY(view.canvas()->visibleLineCount() > 0);  // one head ignores the overlay toggles
        // A result with fewer heads keeps the chooser in range.
        RunSettings small;
        small.d_model = 16;
        small.num_heads = 2;
        auto two = AttentionPipeline::run(small, QStringLiteral("a b c"), TraceDetail::Probabilities);
        QVERIFY(two.ok());
        view.setResult(std::make_shared<const AttentionResult>(std::move(two).value()));
        QCOMPARE(view.headChooser()->count(), 3);
        QVERIFY(view.canvas()->head() < 2);
    }

    void opacityFollowsTheWeight()
    {
        QCOMPARE(LinesCanvas::opacityFor(1.0), 1.0);
        QCOMPARE(LinesCanvas::opacityFor(0.0), 0.0);
        QCOMPARE(LinesCanvas::opacityFor(0.25), 0.125);
        QVERIFY(LinesCanvas::opacityFor(0.5) > LinesCanvas::opacityFor(0.4));
        QVERIFY(LinesCanvas::opacityFor(LinesCanvas::kMinRelativeWeight) > 0.019);
        QVERIFY(LinesCanvas::opacityFor(LinesCanvas::kMinRelativeWeight) < 0.021);
    }

    void headColorsAreDistinct()
    {
        for (int x = 0; x < 16; ++x)
            for (int y = x + 1; y < 16; ++y)
                QVERIFY(LinesCanvas::headColor(x) != LinesCanvas::headColor(y));
    }
};

REGISTER_TEST_SUITE(TestLinesView, QApplication)
#include "test_lines_view.moc"
