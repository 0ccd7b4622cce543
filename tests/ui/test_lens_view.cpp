// The Lens tab in the window: gpt2-tiny opened, the tab's cells equal to LogitLens on the window's
// own run (after typing too), hovering, pinning, the layer chooser's row, a tracked token (refused
// beside its field, the last good one kept), and the residual stream kept only while it is shown.
#include "core/lens/LogitLens.h"
#include "core/model/ModelSession.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/lens/LensView.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

using namespace attn;
using namespace attn::testing;

class TestLensView : public attn::test::ModelWindowTest {
    Q_OBJECT

    LensView* lens() const { return dynamic_cast<LensView*>(m_window->viewTabs()->page(View::Lens)); }

    bool complete() const
    {
        const auto& result = lens()->painter().result();
        if (!result || !lens()->upToDate())
            return false;
        for (bool done : result->done)
            if (!done)
                return false;
        return true;
    }

    // The run the window has, through the core's lens: every cell's ids and p the same.
    void checkAgainstCore(int top_k, std::optional<int> tracked)
    {
        const auto model = controller()->model();
        const auto run = controller()->modelRun();
        QVERIFY(model && run);
        QVERIFY(!run->residual_stream.empty());
        auto expected = LogitLens::compute(model->config(), model->model().weights(), *run, {top_k, tracked});
        QVERIFY2(expected.ok(), qPrintable(expected.error()));
        const LensResult& shown = *lens()->painter().result();
        QCOMPARE(shown.num_rows, expected->num_rows);
        QCOMPARE(shown.seq_len, expected->seq_len);
        QCOMPARE(shown.seq_len, run->seqLen());
        for (int row = 0; row < shown.num_rows; ++row)
            for (int t = 0; t < shown.seq_len; ++t) {
                const LensCell& a = shown.at(row, t);
                const LensCell& b = expected->at(row, t);
                QCOMPARE(int(a.top.size()), top_k);
                for (int k = 0; k < top_k; ++k) {
                    QCOMPARE(a.top[size_t(k)].id, b.top[size_t(k)].id);
                    QCOMPARE(a.top[size_t(k)].p, b.top[size_t(k)].p);  // the same function of the same run
                }
                QCOMPARE(a.tracked_rank, b.tracked_rank);
                QCOMPARE(a.tracked_p, b.tracked_p);
                if (!tracked)
                    QCOMPARE(lens()->painter().cellText(row, t),
                             model->tokenLabels({model->tokenText(b.top.front().id)}).value(0));
            }
    }

    // A point of the canvas inside the cell (row, position).
    std::optional<QPoint> pointOf(int row, int position) const
    {
        const QRect area = lens()->canvas()->rect();
        for (int y = 0; y < area.height(); y += 2)
            for (int x = 0; x < area.width(); x += 2) {
                const auto cell = lens()->painter().cellAt(QPointF(x, y), area);
                if (cell && cell->row == row && cell->position == position)
                    return QPoint(x + 3, y + 3);
            }
        return std::nullopt;
    }

    void showLens()
    {
        m_window->viewTabs()->setCurrentIndex(int(View::Lens));
        QTRY_VERIFY_WITH_TIMEOUT(complete(), 20000);
    }

private slots:
    void withoutAModelItSaysWhy()
    {
        m_window->viewTabs()->setCurrentIndex(int(View::Lens));
        QVERIFY(lens()->painter().message().contains(QLatin1String("open a model folder")));
    }

    void cellsAreTheCoreLensOfTheWindowsRun()
    {
        open(fixturesPath("models/gpt2-tiny"), QStringLiteral("the cat sat"));
        QVERIFY(!controller()->keepsResidualStream());  // not while another tab is shown
        showLens();
        QVERIFY(controller()->keepsResidualStream());
        checkAgainstCore(5, std::nullopt);

        // Typing: the newest run's lens, cell for cell.
        QTest::keyClicks(m_window->sentenceEdit(), QStringLiteral(" on the"));
        controller()->waitForIdle();
        QTRY_VERIFY_WITH_TIMEOUT(
            complete() && lens()->painter().result()->seq_len == controller()->modelRun()->seqLen(), 20000);
        checkAgainstCore(5, std::nullopt);

        lens()->topKBox()->setValue(3);
        QTRY_VERIFY_WITH_TIMEOUT(complete() && lens()->painter().result()->top_k == 3, 20000);
        checkAgainstCore(3, std::nullopt);

        // Another tab: the stream is no longer kept.
        m_window->viewTabs()->setCurrentIndex(int(View::Grid));
        QVERIFY(!controller()->keepsResidualStream());
    }

    void hoverPinAndLayer()
    {
        open(fixturesPath("models/gpt2-tiny"), QStringLiteral("the cat sat on"));
        showLens();
        const LensResult& result = *lens()->painter().result();
        const QString hover = lens()->painter().hoverText(1, 2);
        QVERIFY(hover.startsWith(QStringLiteral("hidden_states[1] · position 2")));
        QVERIFY(hover.contains(QStringLiteral("%1").arg(result.at(1, 2).top.front().p, 0, 'f', 4)));
        QCOMPARE(hover.count(QLatin1Char('\n')), result.top_k);  // the heading and K lines

        const auto point = pointOf(1, 2);
        QVERIFY(point);
        QTest::mouseMove(lens()->canvas(), *point);
        QTRY_COMPARE(lens()->canvas()->toolTip(), hover);
        QTest::mouseClick(lens()->canvas(), Qt::LeftButton, {}, *point);
        QCOMPARE(lens()->painter().pinned(), 2);
        QVERIFY(!lens()->painter().pinnedLines().isEmpty());
        QTest::mouseClick(lens()->canvas(), Qt::LeftButton, {}, *point);
        QCOMPARE(lens()->painter().pinned(), -1);

        // The layer chooser's layer: its output's row framed.
        QCOMPARE(lens()->painter().highlightRow(), 1);
        QVERIFY(controller()->setLayer(1));
        QTRY_COMPARE(lens()->painter().highlightRow(), 2);
    }

    void trackedTokenRefusedBesideItsField()
    {
        open(fixturesPath("models/gpt2-tiny"), QStringLiteral("the cat sat"));
        showLens();
        QLineEdit* field = lens()->trackedBox()->lineEdit();
        field->setText(QStringLiteral("262"));
        emit field->editingFinished();
        QCOMPARE(lens()->trackedId(), std::optional<int>(262));
        QVERIFY(lens()->trackedError()->text().isEmpty());
        QCOMPARE(lens()->shadeBox()->currentIndex(), 1);  // coloured by the tracked token's p
        QTRY_VERIFY_WITH_TIMEOUT(complete() && lens()->painter().result()->tracked == 262, 20000);
        checkAgainstCore(5, 262);

        field->setText(QStringLiteral("Ġcatzzz"));
        emit field->editingFinished();
        QVERIFY2(lens()->trackedError()->text().contains(QLatin1String("catzzz")),
                 qPrintable(lens()->trackedError()->text()));
        QCOMPARE(lens()->trackedId(), std::optional<int>(262));  // the last good one stays
        QVERIFY(complete());
        QCOMPARE(lens()->painter().result()->tracked, std::optional<int>(262));

        // Picked from the top predictions at the last position.
        QVERIFY(lens()->trackedBox()->count() > 0);
        const int picked = lens()->trackedBox()->itemData(0).toInt();
        lens()->trackedBox()->setCurrentIndex(0);
        emit lens()->trackedBox()->activated(0);
        QCOMPARE(lens()->trackedId(), std::optional<int>(picked));
        QVERIFY(lens()->trackedError()->text().isEmpty());
        lens()->shadeBox()->setCurrentIndex(2);
        QCOMPARE(lens()->painter().shade(), LensPainter::Shade::TrackedRank);
    }

    // The tab chosen while the model is still opening (as --tab lens does): the first run lacks
    // the residual stream, and is run again with it rather than waiting for the next keystroke.
    void tabChosenWhileTheModelOpens()
    {
        m_window->openModelFolder(fixturesPath("models/gpt2-tiny"));
        m_window->setCurrentView(View::Lens);
        controller()->waitForIdle();
        QTRY_VERIFY_WITH_TIMEOUT(complete(), 20000);
        checkAgainstCore(5, std::nullopt);
    }

    // A lens over the memory budget (Settings › Memory budget) is refused in the tab, saying what
    // it needs, and the pass stops keeping the residual stream for it; a larger budget draws it.
    void aLensOverTheBudgetIsRefusedInTheTab()
    {
        open(fixturesPath("models/gpt2-tiny"), QStringLiteral("the cat sat"));
        // The program's 256 MiB baseline and 12 MiB: less than the lens's (64, V) block of logits.
        m_window->setMemoryBudget(std::int64_t(268) << 20);
        controller()->waitForIdle();
        m_window->setCurrentView(View::Lens);
        QTRY_VERIFY(lens()->painter().message().contains(QStringLiteral("the logit lens of 3 tokens needs about")));
        QVERIFY2(lens()->painter().message().contains(QStringLiteral("Memory budget")),
                 qPrintable(lens()->painter().message()));
        QVERIFY(!controller()->keepsResidualStream());

        m_window->setMemoryBudget(std::int64_t(512) << 20);
        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat on"));
        controller()->waitForIdle();
        QTRY_VERIFY_WITH_TIMEOUT(complete(), 20000);
        QVERIFY(controller()->keepsResidualStream());
        checkAgainstCore(5, std::nullopt);
    }

    // The tokens written as the rest of the window writes them ("␣cat", never "Ġcat"), and typed
    // that way too; the cells in the window's colour map.
    void tokensAsTheWindowWritesThemInItsColourMap()
    {
        open(fixturesPath("models/gpt2-tiny"), QStringLiteral("the cat sat on the"));
        showLens();
        QTRY_VERIFY_WITH_TIMEOUT(complete() && lens()->trackedBox()->count() > 0, 20000);
        const auto model = controller()->model();
        for (int i = 0; i < lens()->trackedBox()->count(); ++i) {
            const QString item = lens()->trackedBox()->itemText(i);
            QVERIFY2(!item.contains(QChar(0x0120)), qPrintable(item));
            QCOMPARE(item, model->tokenLabels({model->tokenText(lens()->trackedBox()->itemData(i).toInt())}).value(0));
        }

        // "␣the" typed: id 262 (" the"), as its vocabulary spelling "Ġthe" is.
        QLineEdit* field = lens()->trackedBox()->lineEdit();
        field->setText(QStringLiteral("\u2423the"));
        emit field->editingFinished();
        QVERIFY2(lens()->trackedError()->text().isEmpty(), qPrintable(lens()->trackedError()->text()));
        QCOMPARE(lens()->trackedId(), std::optional<int>(262));

        QCOMPARE(lens()->painter().colorMap(), ColorMaps::Map::Viridis);
        m_window->settingsPanel()->setColorMap(ColorMaps::Map::Magma);
        QCOMPARE(lens()->painter().colorMap(), ColorMaps::Map::Magma);
    }
};

REGISTER_TEST_SUITE(TestLensView, QApplication)
#include "test_lens_view.moc"
