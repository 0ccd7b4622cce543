// File › Export image from the real window shows the figure, never the window's state: the
// frame around the current head, the selected query and key, the hovered box or step, and "click
// to expand" stay on screen. Each case exports the tab, changes only that state (and checks the
// screen shows it), exports again and requires the same pixels.
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/shapes/ModelChainView.h"
#include "ui/views/shapes/ShapeDiagramView.h"
#include "ui/views/shapes/ShapesPanel.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMouseEvent>

using namespace attn;

class TestExportScreenState : public test::WindowTest {
    Q_OBJECT

    void settle()
    {
        for (int i = 0; i < 5; ++i)
            QCoreApplication::processEvents();
    }

    // The current tab as File › Export image writes it.
    QImage exported(const QString& name)
    {
        const QString path = m_dir.filePath(name);
        const Status written = m_window->exportImage(path, QSize(900, 700));
        if (!written) {
            qWarning("%s", qPrintable(written.error()));
            return {};
        }
        if (const QString dir = qEnvironmentVariable("ATTENTION_PICTURES_DIR"); !dir.isEmpty())
            QFile::copy(path, QDir(dir).filePath(name));
        return QImage(path).convertToFormat(QImage::Format_ARGB32);
    }

    QByteArray exportedSvg(const QString& name)
    {
        const QString path = m_dir.filePath(name);
        if (!m_window->exportImage(path, QSize(900, 700)))
            return {};
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    static void hover(QWidget* widget, QPointF at)
    {
        QMouseEvent move(QEvent::MouseMove, at, widget->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(widget, &move);
    }

    void openModel(const QString& name)
    {
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat because it was tired."));
        m_window->openModelFolder(testing::modelFixture(name));
        m_window->controller()->waitForIdle();
        settle();
        QVERIFY(m_window->controller()->model());
    }

private slots:
    void init()
    {
        openWindow(QSize(1400, 900));
        if (QTest::currentTestFailed())
            return;
        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat on the mat"));
        m_window->controller()->waitForIdle();
        settle();
    }

    void cleanup() { closeWindow(); }

    void oneHeadLeavesOutTheSelectedQueryAndKey()
    {
        HeadView* view = m_window->viewTabs()->headView();
        m_window->setCurrentView(View::Head);
        view->setHead(2);
        settle();
        const QImage before = exported(QStringLiteral("head-before.png"));
        const QImage screen_before = view->plot()->grab().toImage();
        view->highlightCell(3, 1);
        view->plot()->replotNow();
        settle();
        QVERIFY(view->plot()->grab().toImage() != screen_before);  // the screen shows the selection
        const QImage after = exported(QStringLiteral("head-after.png"));
        QVERIFY(!before.isNull());
        QCOMPARE(after, before);
        view->highlightCell(4, -1);  // a whole query row
        QCOMPARE(exported(QStringLiteral("head-row.png")), before);
    }

    void allHeadsLeaveOutTheCurrentHeadsFrame()
    {
        HeadsGrid* grid = m_window->viewTabs()->grid();
        m_window->setCurrentView(View::Grid);
        grid->setCurrentHead(-1);
        settle();
        const QImage before = exported(QStringLiteral("grid-before.png"));
        grid->setCurrentHead(3);
        settle();
        QVERIFY(!before.isNull());
        QCOMPARE(exported(QStringLiteral("grid-after.png")), before);
    }

    void modelGridLeavesOutTheCurrentHead()
    {
        openModel(QStringLiteral("gpt2-tiny"));
        ModelView* view = m_window->viewTabs()->modelView();
        m_window->setCurrentView(View::Model);
        settle();
        view->canvas()->setCurrent(-1, -1);
        const QImage before = exported(QStringLiteral("model-before.png"));
        view->canvas()->setCurrent(1, 2);
        settle();
        QCOMPARE(view->canvas()->gridPainter().currentHead(), 2);
        QVERIFY(!before.isNull());
        QCOMPARE(exported(QStringLiteral("model-after.png")), before);
    }

    void modelShapesLeaveOutTheHoverAndTheClickHint()
    {
        openModel(QStringLiteral("gpt2-tiny"));
        ShapesPanel* panel = m_window->viewTabs()->shapesPanel();
        m_window->setCurrentView(View::Shapes);
        settle();
        QVERIFY(panel->showsModelChain());
        ModelChainView* chain = panel->modelView();
        const QImage before = exported(QStringLiteral("chain-before.png"));
        const QImage screen_before = chain->grab().toImage();
        const QRectF embeddings = chain->boxRect(ModelChainPainter::Box::WordEmbeddings);
        QVERIFY(!embeddings.isEmpty());
        hover(chain, embeddings.center());
        settle();
        QVERIFY(!before.isNull());
        QCOMPARE(exported(QStringLiteral("chain-hovered.png")), before);
        const QByteArray svg = exportedSvg(QStringLiteral("chain.svg"));
        QVERIFY(svg.contains("the whole model"));  // its texts are in the file, as text
        QVERIFY2(!svg.contains("click"), "the picture tells to click");
        QVERIFY(chain->grab().toImage() != screen_before);  // the hovered box is drawn on screen
    }

    void layerShapesLeaveOutTheHoveredStep()
    {
        ShapesPanel* panel = m_window->viewTabs()->shapesPanel();
        m_window->setCurrentView(View::Shapes);
        settle();
        ShapeDiagramView* diagram = panel->view();
        const QImage before = exported(QStringLiteral("shapes-before.png"));
        const QImage screen_before = diagram->grab().toImage();
        QPointF on_step(-1, -1);
        for (int y = 0; y < diagram->height() && on_step.x() < 0; y += 4)
            for (int x = 0; x < diagram->width() && on_step.x() < 0; x += 4)
                if (diagram->stepAt(QPointF(x, y)) >= 0)
                    on_step = QPointF(x, y);
        QVERIFY(on_step.x() >= 0);
        hover(diagram, on_step);
        settle();
        QVERIFY(diagram->grab().toImage() != screen_before);  // the hovered step is outlined on screen
        QVERIFY(!before.isNull());
        QCOMPARE(exported(QStringLiteral("shapes-hovered.png")), before);
    }

    // No picture of any tab tells the reader to click or hover.
    void noPictureAsksForTheMouse()
    {
        openModel(QStringLiteral("gpt2-tiny"));
        for (const ViewRow& row : ViewRegistry::rows()) {
            if (row.id == View::Walkthrough)
                continue;  // its picture is still a grab of the widget
            m_window->setCurrentView(row.id);
            settle();
            const QByteArray svg = exportedSvg(QStringLiteral("tab-%1.svg").arg(row.key)).toLower();
            QVERIFY2(!svg.isEmpty(), row.key);
            for (const char* word : {"click", "hover", "double-click"})
                QVERIFY2(!svg.contains(word), qPrintable(QStringLiteral("%1: '%2'").arg(row.key, word)));
        }
    }
};

REGISTER_TEST_SUITE(TestExportScreenState, QApplication)
#include "test_export_screen_state.moc"
