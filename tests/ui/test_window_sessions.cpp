// Sessions in the window (ui/shell/SessionActions, docs/sessions.md), driving the real MainWindow
// offscreen: save, change everything, open, and the window's state is the saved one (a whole model
// and the settings panel's weights); a broken or foreign file shows its reason and changes nothing;
// File › Save session is Ctrl+Shift+S, Recent sessions lists what was opened, and a session file
// dropped onto the window opens as a session (not as weights).
#include "core/io/Session.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/AttentionKindSwitch.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SessionActions.h"
#include "ui/views/heads/HeadView.h"

#include <QAction>
#include <QDropEvent>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QTest>
#include <QUrl>

using namespace attn;
using namespace attn::testing;

class TestWindowSessions : public attn::test::ModelWindowTest {
    Q_OBJECT

    SessionActions* sessions() const { return m_window->sessionActions(); }

    // Everything a session holds, set away from the defaults and from each other's values.
    void changeHeatmaps(ColorScale scale, const QList<int>& hidden, double top_mass, bool norms)
    {
        HeatmapMenu* heatmaps = m_window->heatmapMenu();
        heatmaps->setColorScale(scale);
        heatmaps->setHiddenKeys(hidden);
        heatmaps->setTopMass(top_mass);
        heatmaps->setReduction(top_mass < 1.0 ? CellReduction::Mean : CellReduction::Max);
        heatmaps->setAggregate(top_mass < 1.0 ? HeadAggregate::Max : HeadAggregate::None);
        m_window->attentionKind()->setNorms(norms);
    }

private slots:
    void saveChangeOpenRestoresAModel()
    {
        QCOMPARE(m_window->actions()->get(ActionId::SaveSession)->shortcut(),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
        open(modelFixture("gpt2-tiny"), "hello world again and again");
        m_window->showModelHead(1, 2);
        controller()->waitForIdle();
        changeHeatmaps(ColorScale::Log, {1, 3}, 0.8, true);
        const QString path = m_dir.filePath("model-session.json");
        QVERIFY(sessions()->saveSession(path).ok());
        const Session saved = sessions()->current();
        QCOMPARE(saved.text(u"layer"), QStringLiteral("1"));
        QCOMPARE(saved.text(u"head"), QStringLiteral("2"));
        QCOMPARE(saved.text(u"view"), QStringLiteral("head"));
        QCOMPARE(saved.text(u"hide_tokens"), QStringLiteral("1,3"));

        // Everything changed: another model, input, layer, head, tab and heatmap options.
        open(modelFixture("bert-tiny"), "something else");
        m_window->showModelHead(0, 0);
        m_window->setCurrentView(View::Grid);
        changeHeatmaps(ColorScale::Percentile, {}, 1.0, false);
        controller()->waitForIdle();
        QVERIFY(!(sessions()->current() == saved));

        QVERIFY(sessions()->openSession(path).ok());
        controller()->waitForIdle();
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("gpt2-tiny")).absoluteFilePath());
        QCOMPARE(controller()->selectedLayer(), 1);
        QCOMPARE(m_window->headView()->head(), 2);
        QCOMPARE(m_window->currentView(), View::Head);
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("hello world again and again"));
        QCOMPARE(m_window->heatmapMenu()->colorScale(), ColorScale::Log);
        QCOMPARE(m_window->heatmapMenu()->hiddenKeys(), (QList<int>{1, 3}));
        QVERIFY(m_window->attentionKind()->norms());
        QCOMPARE(sessions()->current().toJson(), saved.toJson());
    }

    void saveChangeOpenRestoresSettingsWeights()
    {
        m_window->closeModel();
        RunSettings config;
        config.d_model = 32;
        config.num_heads = 4;
        config.seed = 5;
        config.causal = true;
        m_window->applyOptions(config, QStringLiteral("one two three four"), View::Compare, 3);
        controller()->waitForIdle();
        changeHeatmaps(ColorScale::AllCells, {2}, 0.5, false);
        const QString path = m_dir.filePath("weights-session.json");
        QVERIFY(sessions()->saveSession(path).ok());
        const Session saved = sessions()->current();

        m_window->applyOptions(RunSettings{}, QStringLiteral("other"), View::Grid, 0);
        changeHeatmaps(ColorScale::WithoutOneKeyRows, {}, 1.0, true);
        controller()->waitForIdle();

        QVERIFY(sessions()->openSession(path).ok());
        controller()->waitForIdle();
        QCOMPARE(controller()->config().d_model, 32);
        QCOMPARE(controller()->config().num_heads, 4);
        QCOMPARE(controller()->config().seed, std::uint64_t(5));
        QVERIFY(controller()->config().causal);
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("one two three four"));
        QCOMPARE(m_window->currentView(), View::Compare);
        QCOMPARE(m_window->headView()->head(), 3);
        QVERIFY(!m_window->attentionKind()->norms());
        QCOMPARE(sessions()->current().toJson(), saved.toJson());
    }

    void aBrokenFileChangesNothing_data()
    {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("expected");
        const QByteArray header = R"({"format": "attention-lab-session", "version": 1)";
        QTest::newRow("bad JSON") << QByteArray("{\"format\"") << "not valid JSON";
        QTest::newRow("wrong format") << QByteArray(R"({"format": "x", "version": 1})")
                                      << "not an attention-lab session";
        QTest::newRow("wrong version") << QByteArray(R"({"format": "attention-lab-session", "version": 9})")
                                       << "session version 9 is not supported";
        QTest::newRow("missing folder") << header + R"(, "model": "/no/such/model", "layer": 1})"
                                        << "\"model\": no such folder";
        QTest::newRow("unknown tab") << header + R"(, "view": "nope", "head": 1})"
                                     << "\"view\": no tab";
        QTest::newRow("bad scale") << header + R"(, "scale": "tiny", "d_model": 16})"
                                   << "\"scale\"";
        QTest::newRow("matrix input") << header + R"(, "tokens": "a,b"})"
                                      << "\"tokens\"";
    }

    void aBrokenFileChangesNothing()
    {
        QFETCH(QByteArray, contents);
        QFETCH(QString, expected);
        open(modelFixture("gpt2-tiny"), "hello world");
        m_window->showModelHead(1, 1);
        controller()->waitForIdle();
        const Session before = sessions()->current();
        const QString path = m_dir.filePath("broken.json");
        QVERIFY(writeFile(path, contents));
        const Status opened = sessions()->openSession(path);
        QVERIFY(!opened.ok());
        QVERIFY2(opened.error().contains(expected), qPrintable(opened.error()));
        QVERIFY2(m_window->messageBar()->text().contains(expected), qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->messageBar()->text().startsWith("Session broken.json: "));
        controller()->waitForIdle();
        QCOMPARE(sessions()->current().toJson(), before.toJson());
        QCOMPARE(controller()->selectedLayer(), 1);
    }

    void droppingASessionOpensIt()
    {
        open(modelFixture("gpt2-tiny"), "a dropped session");
        m_window->showModelHead(1, 3);
        controller()->waitForIdle();
        const QString path = m_dir.filePath("dropped.json");
        QVERIFY(sessions()->saveSession(path).ok());
        m_window->showModelHead(0, 0);
        controller()->waitForIdle();
        QVERIFY(SessionActions::isSessionFile(path));
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &drop);
        controller()->waitForIdle();
        QCOMPARE(controller()->selectedLayer(), 1);
        QCOMPARE(m_window->headView()->head(), 3);
        // Saved and opened: at the top of Recent sessions.
        const QStringList recent = m_settings->recent(AppSettings::RecentList::Sessions);
        QVERIFY2(!recent.isEmpty() && recent.first().endsWith("/dropped.json"), qPrintable(recent.join(", ")));
    }
};

REGISTER_TEST_SUITE(TestWindowSessions, QApplication)
#include "test_window_sessions.moc"
