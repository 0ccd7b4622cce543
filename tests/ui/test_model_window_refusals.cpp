// Whole models in the window, offscreen, refused: a broken folder, a refused weight file and a
// sentence too long for the model are each reported beside their cause, and the model in use,
// its result and the panel stay (the tiny fixture folders of tests/fixtures/models).
#include "core/model/ModelSession.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WindowTest.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/LayerChooser.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelView.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QDropEvent>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <memory>

using namespace attn;
using namespace attn::testing;
using attn::test::expectedOf;

class TestModelWindowRefusals : public attn::test::ModelWindowTest {
    Q_OBJECT

private slots:
    // A folder that cannot be shown is reported in the message bar and beside the panel's model
    // button, and the model in use (and its result) stays.
    void brokenFolderKeepsTheModelInUse_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<std::function<bool(const QString&)>>("spoil");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no such folder") << "gpt2-tiny" << std::function<bool(const QString&)>([](const QString& dir) {
            return QDir(dir).removeRecursively();
        }) << "no such folder";
        QTest::newRow("unknown model_type")
            << "gpt2-tiny" << std::function<bool(const QString&)>([](const QString& dir) {
                   return editConfig(dir, [](QJsonObject& config) { config["model_type"] = "t5"; });
               })
            << "t5";
        QTest::newRow("a tensor missing") << "bert-tiny" << std::function<bool(const QString&)>([](const QString& dir) {
            return editTensors(dir, [](std::vector<StTensor>& tensors) {
                std::erase_if(tensors,
                              [](const StTensor& t) { return t.name.contains("layer.1.output.dense.weight"); });
            });
        }) << "layer.1.output.dense.weight";
    }
    void brokenFolderKeepsTheModelInUse()
    {
        QFETCH(QString, fixture);
        QFETCH(std::function<bool(const QString&)>, spoil);
        QFETCH(QString, reason);
        QTemporaryDir broken_root;
        const QString broken = broken_root.filePath("broken");
        QVERIFY(QDir().mkpath(broken));
        QVERIFY(copyFolder(modelFixture(fixture), broken));
        QVERIFY(spoil(broken));

        // Random weights in use: they stay.
        const auto random_result = controller()->result();
        m_window->openModelFolder(broken);
        controller()->waitForIdle();
        QVERIFY(!controller()->hasModel());
        QCOMPARE(controller()->result(), random_result);
        QVERIFY2(m_window->messageBar()->text().contains(reason), qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->messageBar()->text().contains("weights in use stay"));
        QVERIFY(m_window->settingsPanel()->fieldError(SettingField::Model).contains(reason));

        // A model in use: it stays, with its result.
        open(modelFixture("distilbert-tiny"), expectedOf("distilbert-tiny")["sentence"].toString());
        QVERIFY(controller()->hasModel());
        QVERIFY(m_window->settingsPanel()->fieldError(SettingField::Model).isEmpty());
        const auto model_result = controller()->result();
        m_window->openModelFolder(broken);
        controller()->waitForIdle();
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("distilbert-tiny")).absoluteFilePath());
        QCOMPARE(controller()->result(), model_result);
        QVERIFY(m_window->settingsPanel()->showsModel());
        QVERIFY2(m_window->messageBar()->text().contains(reason), qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->messageBar()->text().contains("model in use stays"));
        // Typing still goes to the model in use.
        m_window->sentenceEdit()->setText("the [MASK] token");
        controller()->waitForIdle();
        QCOMPARE(controller()->modelTokens().first(), QStringLiteral("[CLS]"));
    }

    // A weight file given while a model is open (File › Open weights, or a dropped file) is read
    // first: refused, everything stays as it was, the model with its result and its panel; read,
    // it replaces the model.
    void refusedWeightFileLeavesTheModelOpen()
    {
        open(modelFixture("bert-tiny"), "hello world");
        QVERIFY(controller()->hasModel());
        const auto model_result = controller()->result();
        const QString bad = m_dir.filePath("notes.txt");
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not weights at all\n");
        file.close();
        QSignalSpy closed(controller(), &AttentionController::modelClosed);
        m_window->openWeightsFile(bad);
        controller()->waitForIdle();
        QCOMPARE(closed.count(), 0);
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("bert-tiny")).absoluteFilePath());
        QCOMPARE(controller()->result(), model_result);
        QVERIFY(m_window->settingsPanel()->showsModel());
        QVERIFY(m_window->layerChooser()->isVisible());
        QVERIFY(m_window->actions()->get(ActionId::CloseModel)->isEnabled());
        const QString message = m_window->messageBar()->text();
        QVERIFY2(message.contains("notes.txt") && message.contains("the model in use stays"), qPrintable(message));
        QCOMPARE(controller()->config().weight_source, RunSettings::WeightSource::Random);
        QVERIFY(m_settings->recentFiles().isEmpty());
        // Typing still goes to the model.
        m_window->sentenceEdit()->setText("hello there");
        controller()->waitForIdle();
        QCOMPARE(controller()->modelTokens().first(), QStringLiteral("[CLS]"));

        // A dropped file that reads: the model gives way to it.
        const QString good = attn::testing::fixturesPath("attention/weights/gpt2_f32.safetensors");
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(good)});
        QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &drop);
        controller()->waitForIdle();
        QCOMPARE(closed.count(), 1);
        QVERIFY(!controller()->hasModel());
        QVERIFY(!m_window->settingsPanel()->showsModel());
        QCOMPARE(controller()->config().weight_source, RunSettings::WeightSource::File);
        QCOMPARE(controller()->result()->config.d_model, 8);
        QCOMPARE(m_settings->recentFiles().value(0), QFileInfo(good).absoluteFilePath());
    }

    // A refused folder while a model is open: the panel still shows the model in use with its
    // Close model button, and the reason wraps inside its long file names, so the settings dock
    // neither scrolls sideways nor clips its controls.
    void refusedFolderLeavesThePanelOnTheModelInUse()
    {
        open(modelFixture("distilbert-tiny"), "hello world");
        QVERIFY(controller()->hasModel());
        auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("SettingsDock"));
        QVERIFY(dock);
        m_window->resizeDocks({dock}, {280}, Qt::Horizontal);
        QCoreApplication::processEvents();
        QTemporaryDir root;
        const QString broken = root.filePath("no-weights");
        QVERIFY(QDir().mkpath(broken));
        QVERIFY(QFile::copy(modelFixture("distilbert-tiny") + "/config.json", broken + "/config.json"));
        m_window->openModelFolder(broken);
        controller()->waitForIdle();
        QCoreApplication::processEvents();
        SettingsPanel* panel = m_window->settingsPanel();
        const QString reason = panel->fieldError(SettingField::Model);
        QVERIFY2(reason.contains("model.safetensors.index.json"), qPrintable(reason));
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("distilbert-tiny")).absoluteFilePath());
        QVERIFY(panel->showsModel());
        auto* close = panel->findChild<QWidget*>(QStringLiteral("CloseModel"));
        QVERIFY(close && close->isVisibleTo(panel));
        // Laid out whole, under the reason and the open button (a form layout squeezed it to 0 px).
        QCOMPARE(close->height(), close->sizeHint().height());
        for (QLabel* label : panel->findChildren<QLabel*>())
            if (label->isVisibleTo(panel) && label->text().contains("index"))
                QVERIFY2(label->geometry().bottom() < close->geometry().top(), "the reason overlaps Close model");
        QVERIFY(m_window->actions()->get(ActionId::CloseModel)->isEnabled());
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        QVERIFY(scroll);
        QVERIFY2(panel->minimumSizeHint().width() <= scroll->viewport()->width(),
                 qPrintable(QStringLiteral("panel needs %1 px, the dock shows %2")
                                .arg(panel->minimumSizeHint().width())
                                .arg(scroll->viewport()->width())));
        QVERIFY(!scroll->horizontalScrollBar()->isVisible());
        // The whole button inside the visible part of the dock.
        const QRect button(close->mapTo(scroll->viewport(), QPoint(0, 0)), close->size());
        QVERIFY2(scroll->viewport()->rect().contains(QRect(button.left(), 0, button.width(), 1)),
                 qPrintable(QStringLiteral("button x %1..%2, viewport width %3")
                                .arg(button.left())
                                .arg(button.right())
                                .arg(scroll->viewport()->width())));
        // The message bar's copy of the reason wraps as well: the window is not widened by it.
        QVERIFY(m_window->messageBar()->minimumSizeHint().width() < 400);
    }

    // More tokens than the model's positions: said at the sentence, once; the last result stays.
    void tooLongSentenceIsRefusedAtTheSentence()
    {
        open(modelFixture("gpt2-tiny"), "hello world");
        const auto result = controller()->result();
        QString long_sentence;
        for (int i = 0; i < 70; ++i)
            long_sentence += QStringLiteral(" hello");
        m_window->sentenceEdit()->setText(long_sentence);
        controller()->waitForIdle();
        QCOMPARE(controller()->result(), result);
        const QString error = m_window->sentenceEdit()->property("error").toString();
        QVERIFY2(error.contains("n_positions"), qPrintable(error));
        // Said once, under the field, not again in the message bar.
        QVERIFY2(m_window->sentenceError()->isVisible() && m_window->sentenceError()->text().contains("n_positions"),
                 qPrintable(m_window->sentenceError()->text()));
        QVERIFY2(!m_window->messageBar()->text().contains("n_positions"), qPrintable(m_window->messageBar()->text()));
        m_window->sentenceEdit()->setText("hello again");
        controller()->waitForIdle();
        QVERIFY(m_window->sentenceEdit()->property("error").toString().isEmpty());
        QCOMPARE(controller()->modelTokens(), (QStringList{"hello", "Ġagain"}));
    }
};

REGISTER_TEST_SUITE(TestModelWindowRefusals, QApplication)
#include "test_model_window_refusals.moc"
