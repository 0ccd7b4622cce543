// The window's zoom: View › Zoom in, Zoom out and Whole matrix on the One head view (and the
// picture exported while a zoomed window is still being reduced), and Compare's three plots
// zooming and panning as one. The 2,000-token result and the steps are tests/support/ZoomSteps.h.
#include "tests/support/TestSuite.h"
#include "tests/support/ZoomSteps.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"

#include <QAction>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;
using namespace attn::zoom;

class TestWindowZoom : public QObject {
    Q_OBJECT

    std::shared_ptr<const AttentionResult> m_result;

private slots:
    void initTestCase()
    {
        m_result = longResult();
        QVERIFY(m_result);
        QCOMPARE(m_result->seqLen(), kTokens);
    }

    // The window's actions (View › Zoom in, Zoom out, Whole matrix) act on the One head view and
    // are listed with the other shortcuts; File › Export image draws what the view shows.
    void theWindowActionsZoomTheHeadView()
    {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        MainWindow window(&settings);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ActionRegistry* actions = window.actions();
        QVERIFY(actions->get(ActionId::ZoomWhole)->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_0)));
        QVERIFY(actions->shortcutsHtml().contains(QStringLiteral("Zoom in")));
        window.controller()->waitForIdle();
        QCoreApplication::processEvents();
        window.setCurrentView(View::Grid);
        QVERIFY(!actions->get(ActionId::ZoomIn)->isEnabled());
        window.setCurrentView(View::Head);
        QVERIFY(actions->get(ActionId::ZoomIn)->isEnabled());
        window.viewTabs()->headView()->setResult(m_result);
        HeatmapPlot* head = window.viewTabs()->headView()->plot();
        settle(head);
        // Exported while the window is still being reduced: the picture is the window, reduced.
        actions->get(ActionId::ZoomIn)->trigger();
        QVERIFY(head->isZoomed());
        QVERIFY(head->reductionPending());
        const QString path = dir.filePath(QStringLiteral("zoomed.png"));
        QVERIFY(window.exportImage(path, head->size()));
        settle(head);
        QCOMPARE(head->visibleCells().width(), kTokens / 2);
        QCOMPARE(head->reductionFactor(), 1);  // 1,000 x 1,000: every cell
        QCOMPARE(QImage(path).convertToFormat(QImage::Format_RGB32),
                 head->toImage(head->size()).convertToFormat(QImage::Format_RGB32));
        actions->get(ActionId::ZoomIn)->trigger();
        settle(head);
        QCOMPARE(head->visibleCells().width(), kTokens / 4);
        if (const QString dir = qEnvironmentVariable("ATTN_ZOOM_PNG_DIR"); !dir.isEmpty())
            window.grab().save(dir + QStringLiteral("/zoom-window.png"));
        actions->get(ActionId::ZoomOut)->trigger();
        settle(head);
        QCOMPARE(head->visibleCells().width(), kTokens / 2);
        actions->get(ActionId::ZoomWhole)->trigger();
        settle(head);
        QVERIFY(!head->isZoomed());
        QCOMPARE(head->reductionFactor(), 2);
    }

    // Compare's three plots zoom and pan as one: the wheel over A zooms B and A - B to the same
    // window, down to real cells; a double-click on B shows the whole of all three again; the
    // window's zoom actions act on Compare too.
    void compareZoomsItsThreePlotsTogether()
    {
        CompareView view;
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResult(m_result);
        view.setHeads(1, 0);
        QTRY_VERIFY(!view.isComputing());
        QCOMPARE(view.headB(), 0);
        HeatmapPlot* a = view.figure()->plotA();
        HeatmapPlot* b = view.figure()->plotB();
        HeatmapPlot* difference = view.figure()->plotDifference();
        for (HeatmapPlot* plot : {a, b, difference}) {
            settle(plot);
            QVERIFY(plot->isZoomable());
            QVERIFY(plot->reductionFactor() > 1);
        }
        for (int notch = 0; notch < 40 && (a->reductionFactor() > 1 || a->visibleCells().width() > 48); ++notch) {
            wheel(a, centreOf(a, 1500, 1200), 120);
            for (HeatmapPlot* plot : {a, b, difference})
                settle(plot);
        }
        QCOMPARE(a->reductionFactor(), 1);
        for (HeatmapPlot* plot : {b, difference}) {
            QCOMPARE(plot->viewWindow(), a->viewWindow());
            QCOMPARE(plot->reductionFactor(), 1);
        }
        const QRect cells = a->visibleCells();
        QVERIFY(cells.contains(1200, 1500));
        if (const QString dir = qEnvironmentVariable("ATTN_ZOOM_PNG_DIR"); !dir.isEmpty())
            view.grab().save(dir + QStringLiteral("/zoom-compare.png"));
        int r = -1, c = -1;
        QVERIFY(b->cellAt(b->positionOf(1500.5, 1200.5).toPoint(), &r, &c));
        QCOMPARE(r, 1500);
        QCOMPARE(c, 1200);
        QTest::mouseDClick(b->findChild<QWidget*>(), Qt::LeftButton, {}, b->positionOf(1500.5, 1200.5).toPoint());
        for (HeatmapPlot* plot : {a, b, difference}) {
            settle(plot);
            QVERIFY(!plot->isZoomed());
        }

        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        MainWindow window(&settings);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.controller()->waitForIdle();
        window.setCurrentView(View::Compare);
        ActionRegistry* actions = window.actions();
        QVERIFY(actions->get(ActionId::ZoomIn)->isEnabled());
        actions->get(ActionId::ZoomIn)->trigger();
        CompareFigure* figure = window.viewTabs()->compareView()->figure();
        QVERIFY(figure->plotA()->isZoomed());
        QCOMPARE(figure->plotDifference()->viewWindow(), figure->plotA()->viewWindow());
        actions->get(ActionId::ZoomWhole)->trigger();
        QVERIFY(!figure->plotB()->isZoomed());
    }
};

REGISTER_TEST_SUITE(TestWindowZoom, QApplication)
#include "test_window_zoom.moc"
