// The rough edges a new user met in the window, offscreen: a weight file without a number of
// heads, exports into a missing folder, the settings dock, the Help menu, the walkthrough's
// scrolling and colours, and the settings panel's error flags.
#include "core/pipeline/AttentionResult.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WeightFileWriters.h"
#include "tests/support/WindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/ExportImageDialog.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/UserGuide.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;
using namespace attn::testing;

namespace {

// torch.nn.MultiheadAttention(64, 4).state_dict() saved with numpy.savez: no num_heads member.
bool writeTorchStateDict(const QString& path, int embed_dim, std::optional<int> num_heads = std::nullopt)
{
    std::vector<ZipMember> members;
    for (const NamedF32& tensor : mhaTensors(SampleWeights::make(embed_dim, embed_dim, embed_dim))) {
        QStringList dims;
        for (auto d : tensor.shape)
            dims << QString::number(d);
        const QString shape = dims.size() == 1 ? QStringLiteral("(%1,)").arg(dims[0]) : "(" + dims.join(", ") + ")";
        members.push_back({tensor.name + ".npy", npy("<f4", shape, tensor.data)});
    }
    if (num_heads)
        members.push_back({"num_heads.npy", npy("<i8", "()", i64Bytes({*num_heads}))});
    return writeZip(path, members);
}

}  // namespace

class TestWindowEdges : public attn::test::WindowTest {
    Q_OBJECT

private slots:
    void init() { openWindow(); }

    void cleanup() { closeWindow(); }

    void fileWithoutHeadsIsSplitAsTheHeadsFieldSays()
    {
        const QString path = m_dir.filePath("mha.npz");
        QVERIFY(writeTorchStateDict(path, 64));
        m_window->settingsPanel()->headsBox()->setValue(4);  // the user knows: 4 heads
        QCOMPARE(m_window->controller()->config().num_heads, 4);
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        const QString message = m_window->messageBar()->text();
        QVERIFY2(m_window->controller()->config().weight_source == RunSettings::WeightSource::File,
                 qPrintable(message));
        const auto result = m_window->controller()->result();
        QCOMPARE(result->config.d_model, 64);
        QCOMPARE(result->numHeads(), 4);
        QVERIFY2(!message.contains("--"), qPrintable(message));  // the window's words, not a flag
        QVERIFY2(message.contains("Heads") && message.contains("mha.npz"), qPrintable(message));
        QCOMPARE(m_window->settingsPanel()->headsBox()->value(), 4);
        // Another split from the Heads field reads the file again, with 2 heads.
        m_window->settingsPanel()->headsBox()->setValue(2);
        m_window->controller()->waitForIdle();
        QCOMPARE(m_window->controller()->result()->numHeads(), 2);
        QCOMPARE(m_window->messageBar()->text(), QString());  // "split into 4 heads" is no longer true
    }

    void jsonWithoutHeadsIsSplitAsTheHeadsFieldSays()
    {
        const QString path = m_dir.filePath("toy.json");
        const QByteArray eye = "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]";
        QVERIFY(writeFile(path, "{\"wq\": " + eye + ", \"wk\": " + eye + ", \"wv\": " + eye + "}"));
        m_window->settingsPanel()->headsBox()->setValue(2);
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        const QString message = m_window->messageBar()->text();
        QVERIFY2(m_window->controller()->config().weight_source == RunSettings::WeightSource::File,
                 qPrintable(message));
        QCOMPARE(m_window->controller()->result()->numHeads(), 2);
        QVERIFY2(!message.contains("--heads") && message.contains("Heads"), qPrintable(message));
    }

    void fileThatStatesItsHeadsKeepsThem()
    {
        const QString path = m_dir.filePath("mha-heads.npz");
        QVERIFY(writeTorchStateDict(path, 64, 2));
        m_window->settingsPanel()->headsBox()->setValue(4);
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        QVERIFY2(m_window->controller()->result()->numHeads() == 2, qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->messageBar()->text().isEmpty());
    }

    void headsFieldThatDoesNotFitSaysWhatToDo()
    {
        const QString path = m_dir.filePath("mha.npz");
        QVERIFY(writeTorchStateDict(path, 64));
        m_window->settingsPanel()->headsBox()->setValue(128);  // d_model 512 / 128; 64 / 128 does not fit
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        QCOMPARE(m_window->controller()->config().weight_source, RunSettings::WeightSource::Random);
        const QString message = m_window->messageBar()->text();
        QVERIFY2(message.contains("does not say how many heads") && message.contains("Heads"), qPrintable(message));
        QVERIFY2(!message.contains("--heads"), qPrintable(message));
    }

    void exportProposesAFolderThatExists()
    {
        // A home without Pictures or Documents: the proposal is in the home folder itself.
        QTemporaryDir home;
        const QByteArray old_home = qgetenv("HOME");
        const QByteArray old_config = qgetenv("XDG_CONFIG_HOME");
        qputenv("HOME", QFile::encodeName(home.path()));
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(home.filePath("config")));  // no user-dirs.dirs there
        const QString bare = m_window->proposedImagePath();
        QVERIFY(QDir(home.filePath("Documents")).mkpath("."));
        const QString with_documents = m_window->proposedImagePath();
        QVERIFY(QDir(home.filePath("Pictures")).mkpath("."));
        const QString with_pictures = m_window->proposedImagePath();
        qputenv("HOME", old_home);
        qputenv("XDG_CONFIG_HOME", old_config);
        if (old_config.isEmpty())
            qunsetenv("XDG_CONFIG_HOME");
        QCOMPARE(QFileInfo(bare).absolutePath(), QFileInfo(home.path()).absoluteFilePath());
        QCOMPARE(QFileInfo(with_documents).absolutePath(), QFileInfo(home.filePath("Documents")).absoluteFilePath());
        QCOMPARE(QFileInfo(with_pictures).absolutePath(), QFileInfo(home.filePath("Pictures")).absoluteFilePath());
        QVERIFY(with_pictures.endsWith(".png"));
    }

    // The next export is proposed where the last one went; a missing folder keeps the dialog
    // open with the reason under the path; the path field shows a whole path.
    void exportDialogRemembersTheFolderAndKeepsABadPath()
    {
        QVERIFY(QDir(m_dir.path()).mkpath("figures"));
        QVERIFY(m_window->exportImage(m_dir.filePath("figures/first.png"), {400, 300}));
        QCOMPARE(QFileInfo(m_window->proposedImagePath()).absolutePath(),
                 QFileInfo(m_dir.filePath("figures")).absoluteFilePath());
        ExportImageDialog dialog(m_dir.filePath("missing/heads.png"), {400, 300});
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.findChild<QLineEdit*>()->width() >= 300);
        dialog.accept();
        QVERIFY(dialog.isVisible());
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QVERIFY2(dialog.pathError().contains("missing"), qPrintable(dialog.pathError()));
        QCOMPARE(dialog.path(), m_dir.filePath("missing/heads.png"));
        dialog.findChild<QLineEdit*>()->setText(m_dir.filePath("figures/heads.png"));
        dialog.accept();
        QVERIFY(!dialog.isVisible());
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }

    void exportFailureMessageGoesOnceAnExportSucceeds()
    {
        QVERIFY(!m_window->exportImage(m_dir.filePath("missing/heads.png"), {400, 300}));
        QVERIFY2(m_window->messageBar()->text().contains("Export failed"), qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->exportImage(m_dir.filePath("heads.png"), {400, 300}));
        QCOMPARE(m_window->messageBar()->text(), QString());
        // A message about something else stays.
        m_window->messageBar()->showError("weights: something else");
        QVERIFY(m_window->exportImage(m_dir.filePath("heads2.png"), {400, 300}));
        QCOMPARE(m_window->messageBar()->text(), QString("weights: something else"));
    }

    void closedSettingsPanelComesBackFromTheViewMenu()
    {
        auto* dock = m_window->findChild<QDockWidget*>("SettingsDock");
        QVERIFY(dock);
        dock->close();
        QVERIFY(!dock->isVisible());
        QMenu* view = nullptr;
        for (QAction* menu : m_window->menuBar()->actions())
            if (menu->text() == "&View")
                view = menu->menu();
        QVERIFY(view);
        QVERIFY(view->actions().contains(dock->toggleViewAction()));
        dock->toggleViewAction()->trigger();
        QVERIFY(dock->isVisible());
    }

    void keyboardShortcutsListEveryShortcut()
    {
        const QString html = m_window->actions()->shortcutsHtml();
        int listed = 0;
        for (QAction* action : static_cast<QWidget*>(m_window.get())->actions())
            for (const QKeySequence& shortcut : action->shortcuts()) {
                const QString keys = shortcut.toString(QKeySequence::NativeText).toHtmlEscaped();
                QVERIFY2(html.contains(keys), qPrintable(keys));
                QVERIFY2(html.contains(action->text().remove('&').toHtmlEscaped()), qPrintable(action->text()));
                ++listed;
            }
        QVERIFY(listed >= 16);  // Ctrl+O, Ctrl+E, ... Ctrl+1..6, PgUp, PgDn, Ctrl+L, Ctrl+M, F1
        QAction* help = m_window->actions()->get(ActionId::KeyboardShortcuts);
        QVERIFY(help->shortcuts().contains(QKeySequence(Qt::Key_F1)));
        help->trigger();
        auto* box = m_window->findChild<QMessageBox*>("KeyboardShortcuts");
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        QCOMPARE(box->text(), html);
        box->close();
    }

    void aboutNamesVersionLicencesAndDocumentation()
    {
        QCoreApplication::setApplicationVersion("9.8.7");
        m_window->actions()->get(ActionId::About)->trigger();
        auto* box = m_window->findChild<QMessageBox*>("About");
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        const QString text = box->text();
        for (const char* part :
             {"9.8.7", "GPL-3.0-or-later", "README", "docs/command-line.md", "toy-4d", "QCustomPlot (GPL", "Eigen (MPL",
              "QuaZip (LGPL", "Qt ", "docs/", "compiled for x86-64"})
            QVERIFY2(text.contains(part), part);
        QVERIFY(!text.contains("tests/data"));  // the vocabularies are test data, not shipped
        QVERIFY(!text.contains(".invalid"));    // a placeholder home page is not offered as a link
        box->close();
        QMenu* help =
            m_window->actions()->get(ActionId::AboutQt)->associatedObjects().isEmpty()
                ? nullptr
                : qobject_cast<QMenu*>(m_window->actions()->get(ActionId::AboutQt)->associatedObjects().first());
        QVERIFY2(help && help->title() == "&Help", "About Qt is in the Help menu");
    }

    // Help › User guide is in the Help menu, and the program of this build folder finds the
    // checkout's guide (the installed program's is checked by test_install); where none is
    // found, the message says where the guide is.
    void helpOpensTheUserGuide()
    {
        QAction* action = m_window->actions()->get(ActionId::UserGuide);
        QVERIFY(action);
        QVERIFY(!action->associatedObjects().isEmpty());
        auto* help = qobject_cast<QMenu*>(action->associatedObjects().first());
        QVERIFY2(help && help->title() == "&Help", "User guide is in the Help menu");
        const QString program_dir = QFileInfo(attn::testing::requiredEnvironment("ATTENTION_LAB_EXE")).absolutePath();
        const QString guide = UserGuide::locate(program_dir);
        QCOMPARE(guide, QFileInfo(attn::testing::sourcePath("docs/window.md")).canonicalFilePath());
        QTemporaryDir elsewhere;  // a program with no guide beside it, nor a build folder
        QCOMPARE(UserGuide::locate(elsewhere.path()), QString());
        const QString missing = UserGuide::missingText(elsewhere.path());
        QVERIFY2(missing.contains("share/doc/attention-lab/docs/window.md"), qPrintable(missing));
        QVERIFY2(missing.contains("README.md"), qPrintable(missing));
    }

    void refusedFieldKeepsItsNativeLook()
    {
        SettingsPanel* panel = m_window->settingsPanel();
        QSpinBox* heads = panel->headsBox();
        const QString tip = heads->toolTip();
        const QColor base = panel->palette().color(QPalette::Base);
        heads->setValue(7);  // 512 is not divisible by 7
        QVERIFY(panel->fieldError(SettingField::Heads).contains("not divisible by 7"));
        // No style sheet: the spin box is drawn by the application's style, arrows included.
        QVERIFY(heads->styleSheet().isEmpty());
        QCOMPARE(heads->style(), QApplication::style());
        QVERIFY(heads->palette().color(QPalette::Base) != base);  // the red tint
        QCOMPARE(heads->toolTip(), panel->fieldError(SettingField::Heads));
        heads->setValue(8);
        QVERIFY(panel->fieldError(SettingField::Heads).isEmpty());
        QCOMPARE(heads->palette().color(QPalette::Base), base);
        QCOMPARE(heads->toolTip(), tip);
    }

    void weightsRefusalIsShownOnce()
    {
        const QString path = m_dir.filePath("broken.npz");
        QVERIFY(writeFile(path, "not a zip at all"));
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        QVERIFY2(m_window->messageBar()->text().contains("broken.npz"), qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->settingsPanel()->fieldError(SettingField::Weights).contains("broken.npz"));
        QVERIFY(m_window->settingsPanel()->weightsBox()->toolTip().contains("broken.npz"));
        // The combo shows the weights in use again, untinted: nothing there is refused.
        QCOMPARE(m_window->settingsPanel()->weightsBox()->currentIndex(), 0);
        QCOMPARE(m_window->settingsPanel()->weightsBox()->palette().color(QPalette::Base),
                 m_window->settingsPanel()->palette().color(QPalette::Base));
        QCOMPARE(m_window->settingsPanel()->weightsBox()->palette().color(QPalette::Button),
                 m_window->settingsPanel()->palette().color(QPalette::Button));
        for (QLabel* label : m_window->settingsPanel()->findChildren<QLabel*>())
            QVERIFY2(!(label->isVisible() && label->text().contains("broken.npz")), "repeated under the field");
    }

    void exportDialogLabelsItsFileField()
    {
        ExportImageDialog dialog(m_dir.filePath("x.png"), {400, 300});
        bool found = false;
        for (QLabel* label : dialog.findChildren<QLabel*>())
            if (label->text() == "&File") {
                found = true;
                QVERIFY(qobject_cast<QLineEdit*>(label->buddy()));  // shown as "File" with Alt+F
            }
        QVERIFY(found);
    }
};

REGISTER_TEST_SUITE(TestWindowEdges, QApplication)
#include "test_window_edges.moc"
