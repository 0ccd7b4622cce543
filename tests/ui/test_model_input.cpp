// What the window remembers of a whole model and how its input is typed, offscreen: the model
// open when the window closed is read again at start-up (a folder gone or broken is said beside
// the panel's model button, with random weights in use, and no dialog), and the sentence field's
// Token ids mode runs the model on ids as they are (a folder without a tokenizer takes only
// those); bad ids are refused beside the field while the last good result stays.
#include "core/analysis/InductionProbe.h"
#include "core/model/ModelSession.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace attn;
using namespace attn::testing;

namespace {

QString absolute(const QString& dir)
{
    return QFileInfo(dir).absoluteFilePath();
}

// The largest |grid - expected| over every head of layer `layer` of the fixture's expected.json.
double gridDifference(HeadsGrid* grid, const QJsonObject& expected, int layer)
{
    const QJsonArray heads = expected["attention"].toArray()[layer].toArray();
    double worst = 0;
    for (int head = 0; head < heads.size(); ++head) {
        const Matrix& shown = grid->plot(head)->values();  // (T, T): queries as rows
        const QJsonArray rows = heads[head].toArray();
        if (shown.rows() != rows.size())
            return 1e9;
        for (int q = 0; q < rows.size(); ++q)
            for (int k = 0; k < rows.size(); ++k)
                worst = std::max(worst, std::abs(double(shown(q, k)) - rows[q].toArray()[k].toDouble()));
    }
    return worst;
}

QString idsOf(const QJsonObject& expected)
{
    QStringList ids;
    for (const QJsonValue& id : expected["token_ids"].toArray())
        ids << QString::number(id.toInt());
    return ids.join(", ");
}

}  // namespace

class TestModelInput : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;

    AttentionController* controller() const { return m_window->controller(); }
    QString settingsPath() const { return m_dir.filePath("settings.ini"); }

    // A window on the settings file as it is now, shown, its start-up work done.
    void startWindow()
    {
        m_window.reset();
        m_settings = std::make_unique<AppSettings>(settingsPath());
        m_window = std::make_unique<MainWindow>(m_settings.get());
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        controller()->waitForIdle();
    }

    // Closes the window as the user does (its settings are written), and the settings file.
    void closeWindow()
    {
        m_window->close();
        m_window.reset();
        m_settings.reset();
    }

    // A copy of gpt2-tiny at `folder`, open with "hello world" and every pass done, so that the
    // window remembers it when it closes.
    void openModelCopy(const QString& folder)
    {
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(copyFolder(modelFixture("gpt2-tiny"), folder));
        m_window->sentenceEdit()->setText("hello world");
        m_window->openModelFolder(folder);
        controller()->waitForIdle();
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(settingsPath());
        startWindow();
    }

    void cleanup()
    {
        m_window.reset();
        m_settings.reset();
        QFile::remove(settingsPath());
    }

    // The model, its layer and the sentence of the last session come back at start-up, computed.
    void openModelIsReopenedAtStartUp()
    {
        m_window->sentenceEdit()->setText("hello world again");
        m_window->openModelFolder(modelFixture("gpt2-tiny"), 1);
        controller()->waitForIdle();
        QVERIFY(controller()->hasModel());
        closeWindow();

        startWindow();
        QVERIFY(controller()->hasModel());
        QCOMPARE(controller()->model()->dir(), absolute(modelFixture("gpt2-tiny")));
        QCOMPARE(controller()->selectedLayer(), 1);
        QCOMPARE(controller()->modelTokens(), (QStringList{"hello", "Ġworld", "Ġagain"}));
        QCOMPARE(controller()->result()->config.layer, 1);
        QVERIFY(m_window->settingsPanel()->showsModel());

        // Closed again before the folder was read (no event delivered its outcome): still remembered.
        closeWindow();
        m_settings = std::make_unique<AppSettings>(settingsPath());
        m_window = std::make_unique<MainWindow>(m_settings.get());
        QVERIFY(controller()->isOpeningModel());
        closeWindow();
        startWindow();
        QVERIFY(controller()->hasModel());
        QCOMPARE(controller()->model()->dir(), absolute(modelFixture("gpt2-tiny")));
        QCOMPARE(controller()->selectedLayer(), 1);

        // Closed before quitting: the next start is on the panel's weights.
        m_window->closeModel();
        controller()->waitForIdle();
        closeWindow();
        startWindow();
        QVERIFY(!controller()->hasModel());
        QVERIFY(!controller()->isOpeningModel());
    }

    // While the remembered model is read at start-up the window says so, and the keys' sentence
    // (which a model does not take) waits; once it is open the message goes, and a folder that is
    // gone gives the keys' sentence back.
    void restoredModelShowsItsOpeningState()
    {
        QTemporaryDir root;
        const QString folder = root.filePath("gpt2-copy");
        openModelCopy(folder);
        if (QTest::currentTestFailed())
            return;
        closeWindow();

        for (const bool gone : {false, true}) {
            if (gone)
                QVERIFY(QDir(folder).removeRecursively());
            m_settings = std::make_unique<AppSettings>(settingsPath());
            m_window = std::make_unique<MainWindow>(m_settings.get());
            QVERIFY(controller()->isOpeningModel());  // no event has delivered its outcome yet
            const QString message = m_window->messageBar()->text();
            QVERIFY2(message.startsWith("Opening gpt2-copy"), qPrintable(message));
            QVERIFY(!m_window->messageBar()->isHidden());
            QVERIFY(!m_window->kvSentenceEdit()->isEnabled());
            controller()->waitForIdle();
            QCOMPARE(controller()->hasModel(), !gone);
            QVERIFY(!m_window->messageBar()->text().startsWith("Opening") || m_window->messageBar()->isHidden());
            QCOMPARE(m_window->kvSentenceEdit()->isEnabled(), gone);
            if (!gone)
                closeWindow();
        }
    }

    // A remembered folder that is gone, or broken, is said beside the panel's model button and in
    // the bar; the window runs on random weights, its sentence computed.
    void goneOrBrokenModelFallsBackToRandomWeights_data()
    {
        QTest::addColumn<bool>("remove");
        QTest::addColumn<QString>("reason");
        QTest::newRow("gone") << true << "no such folder";
        QTest::newRow("broken config.json") << false << "config.json";
    }
    void goneOrBrokenModelFallsBackToRandomWeights()
    {
        QFETCH(bool, remove);
        QFETCH(QString, reason);
        QTemporaryDir root;
        const QString folder = root.filePath("gpt2-copy");
        openModelCopy(folder);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(controller()->hasModel());
        closeWindow();

        if (remove) {
            QVERIFY(QDir(folder).removeRecursively());
        } else {
            QFile config(folder + "/config.json");
            QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
            config.write("{\"model_type\": ");
        }
        startWindow();
        QVERIFY(!controller()->hasModel());
        QVERIFY(controller()->result());
        QCOMPARE(controller()->result()->config.weight_source, RunSettings::WeightSource::Random);
        QCOMPARE(controller()->result()->seqLen(), 2);
        const QString beside = m_window->settingsPanel()->fieldError(SettingField::Model);
        QVERIFY2(beside.contains(reason), qPrintable(beside));
        const QString bar = m_window->messageBar()->text();
        QVERIFY2(bar.contains("saved model could not be opened") && bar.contains(reason), qPrintable(bar));
        QVERIFY(!m_window->settingsPanel()->showsModel());
    }

    // --model on the command line wins over the remembered model (WindowLauncher opens it after
    // the window has started on its settings).
    void anotherModelOpenedAtStartWins()
    {
        m_window->sentenceEdit()->setText("hello world");
        m_window->openModelFolder(modelFixture("gpt2-tiny"));
        controller()->waitForIdle();
        closeWindow();

        m_settings = std::make_unique<AppSettings>(settingsPath());
        m_window = std::make_unique<MainWindow>(m_settings.get());
        m_window->openModelFolder(modelFixture("bert-tiny"));  // before the event loop ran
        controller()->waitForIdle();
        QCOMPARE(controller()->model()->dir(), absolute(modelFixture("bert-tiny")));
        QCOMPARE(controller()->modelTokens().first(), QStringLiteral("[CLS]"));
        QVERIFY(m_window->settingsPanel()->fieldError(SettingField::Model).isEmpty());
        QVERIFY(!m_window->messageBar()->text().contains("saved model"));
    }

    // Token ids typed in the field run the model on them as they are: the grid is the reference's
    // attention for those ids (the contract's 2e-5, as test_model_window). Text and ids each keep their text.
    void tokenIdsRunTheModel()
    {
        const QJsonObject expected = readJsonObject(modelFixture("gpt2-tiny") + "/expected.json");
        m_window->sentenceEdit()->setText("some text");
        m_window->openModelFolder(modelFixture("gpt2-tiny"));
        controller()->waitForIdle();
        QVERIFY(m_window->inputModeBox()->isVisible());
        m_window->inputModeBox()->setCurrentIndex(MainWindow::kTokenIdsMode);
        QVERIFY(controller()->tokenIdsInput());
        // The field starts with the ids of the text, refused nowhere.
        QStringList text_ids;
        for (int id : controller()->modelRun()->token_ids)
            text_ids << QString::number(id);
        QCOMPARE(m_window->sentenceEdit()->text(), text_ids.join(", "));
        QVERIFY(m_window->sentenceError()->isHidden());
        m_window->sentenceEdit()->setText(idsOf(expected));
        controller()->waitForIdle();
        QCOMPARE(controller()->modelTokens(), expected["tokens"].toVariant().toStringList());
        QVERIFY(gridDifference(m_window->headsGrid(), expected, 0) <= testing::kContractTolerance);

        m_window->inputModeBox()->setCurrentIndex(0);
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("some text"));
        controller()->waitForIdle();
        QCOMPARE(controller()->modelTokens(), (QStringList{"some", "Ġtext"}));
        m_window->inputModeBox()->setCurrentIndex(MainWindow::kTokenIdsMode);
        QCOMPARE(m_window->sentenceEdit()->text(), idsOf(expected));

        // Remembered: the ids mode and its ids come back with the model.
        controller()->waitForIdle();
        closeWindow();
        startWindow();
        QVERIFY(controller()->tokenIdsInput());
        QCOMPARE(m_window->inputModeBox()->currentIndex(), MainWindow::kTokenIdsMode);
        QCOMPARE(m_window->sentenceEdit()->text(), idsOf(expected));
        QCOMPARE(controller()->modelTokens(), expected["tokens"].toVariant().toStringList());
    }

    // Model › Induction probe: the ids of InductionProbe (random ids given twice) in Token ids mode,
    // run by the model; the Model tab opens with the heads sorted and framed by their induction
    // score. Without a model the action is disabled.
    void inductionProbeFromTheModelMenu()
    {
        QAction* probe = m_window->actions()->get(ActionId::InductionProbe);
        QVERIFY(!probe->isEnabled());
        m_window->openModelFolder(modelFixture("gpt2-tiny"));
        controller()->waitForIdle();
        QVERIFY(probe->isEnabled());
        probe->trigger();
        controller()->waitForIdle();
        QVERIFY(controller()->tokenIdsInput());
        const int vocab = controller()->model()->config().vocab_size;
        const int positions = controller()->model()->config().max_positions;
        const int length = std::min(MainWindow::kInductionProbeLength, positions / 2);
        QStringList ids;
        for (int id : InductionProbe::tokens(length, vocab))
            ids << QString::number(id);
        QCOMPARE(m_window->sentenceEdit()->text(), ids.join(", "));
        QCOMPARE(controller()->modelTokens().size(), 2 * length);
        QCOMPARE(m_window->currentView(), View::Model);
        ModelView* model = m_window->viewTabs()->modelView();
        QCOMPARE(model->orderBox()->currentData().toString(), QStringLiteral("induction"));
        QCOMPARE(model->marksBox()->currentData().toString(), QStringLiteral("induction"));
        QTRY_VERIFY(model->canvas()->gridPainter().isOrdered());
        QCOMPARE(model->canvas()->gridPainter().run()->seqLen(), 2 * length);
        m_window->closeModel();
        controller()->waitForIdle();
        QVERIFY(!probe->isEnabled());
    }

    // Bad ids: one reason beside the field; the views keep the last good result.
    void badTokenIdsAreRefusedBesideTheField_data()
    {
        QTest::addColumn<QString>("ids");
        QTest::addColumn<QString>("reason");
        QTest::newRow("outside the vocabulary") << "464, 50257"
                                                << "token id 50257 (position 1) is outside the vocabulary";
        QTest::newRow("not numbers") << "1, two"
                                     << "expected comma-separated non-negative integers, got 'two'";
        QTest::newRow("negative") << "1 -2"
                                  << "got '-2'";
        QString many;
        for (int i = 0; i < 65; ++i)
            many += QStringLiteral("%1,").arg(i);
        many.chop(1);
        QTest::newRow("more than the positions") << many << "65 tokens are more than the model's 64 positions";
        QTest::newRow("empty") << "  "
                               << "type token ids";
    }
    void badTokenIdsAreRefusedBesideTheField()
    {
        QFETCH(QString, ids);
        QFETCH(QString, reason);
        m_window->openModelFolder(modelFixture("gpt2-tiny"));
        m_window->setTokenIds("15496, 995");
        controller()->waitForIdle();
        QCOMPARE(controller()->modelTokens(), (QStringList{"Hello", "Ġworld"}));
        const auto good = controller()->result();

        m_window->sentenceEdit()->setText(ids);
        controller()->waitForIdle();
        QCOMPARE(controller()->result(), good);
        QVERIFY2(m_window->sentenceError()->isVisible(), "no error beside the field");
        const QString shown = m_window->sentenceError()->text();
        QVERIFY2(shown.contains(reason), qPrintable(shown));

        m_window->sentenceEdit()->setText("15496");
        controller()->waitForIdle();
        QVERIFY(!m_window->sentenceError()->isVisible());
        QCOMPARE(controller()->modelTokens(), (QStringList{"Hello"}));
    }

    // Opening a folder without tokenizer files while the field holds text: the field switches to
    // ids, starting with the first few of the vocabulary, and every view shows the model at once;
    // nothing is refused before anything is typed. The text is not read as ids, and waits for Text.
    void folderWithoutTokenizerStartsOnItsFirstIds()
    {
        m_window->sentenceEdit()->setText("The cat sat");
        controller()->waitForIdle();
        const auto random = controller()->result();
        m_window->openModelFolder(modelFixture("llama-tiny"));
        controller()->waitForIdle();
        QVERIFY(controller()->tokenIdsInput());
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("0, 1, 2, 3, 4, 5, 6, 7"));
        QVERIFY2(m_window->sentenceError()->isHidden(), qPrintable(m_window->sentenceError()->text()));
        QVERIFY(m_window->sentenceEdit()->property("error").toString().isEmpty());
        QVERIFY(m_window->settingsPanel()->fieldError(SettingField::Sentence).isEmpty());
        const QString message = m_window->messageBar()->text();
        QVERIFY2(message.contains("no tokenizer files") && message.contains("0, 1, 2"), qPrintable(message));
        // The views show the model: its layer 0 on those ids, not the random weights from before.
        const auto result = controller()->result();
        QVERIFY(result != random);
        QCOMPARE(result->seqLen(), 8);
        QCOMPARE(result->numHeads(), 4);
        QVERIFY2(result->weights_description.contains("llama-tiny"), qPrintable(result->weights_description));
        QCOMPARE(m_window->headsGrid()->headCount(), 4);
        QCOMPARE(m_window->headsGrid()->plot(0)->fullColumnCount(), 8);

        m_window->inputModeBox()->setCurrentIndex(0);
        controller()->waitForIdle();
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("The cat sat"));
        QVERIFY2(m_window->sentenceError()->text().contains("no tokenizer files"),
                 qPrintable(m_window->sentenceError()->text()));
        // Back to ids: the ids as they were.
        m_window->inputModeBox()->setCurrentIndex(MainWindow::kTokenIdsMode);
        controller()->waitForIdle();
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("0, 1, 2, 3, 4, 5, 6, 7"));
        QVERIFY(m_window->sentenceError()->isHidden());
    }

    // Token ids chosen for a model with a tokenizer: the field starts with the sentence's ids.
    void tokenIdsModeStartsWithTheSentencesIds()
    {
        m_window->sentenceEdit()->setText("Hello world");
        m_window->openModelFolder(modelFixture("gpt2-tiny"));
        controller()->waitForIdle();
        QVERIFY(!controller()->tokenIdsInput());
        m_window->inputModeBox()->setCurrentIndex(MainWindow::kTokenIdsMode);
        controller()->waitForIdle();
        QCOMPARE(m_window->sentenceEdit()->text(), QStringLiteral("15496, 995"));
        QVERIFY(m_window->sentenceError()->isHidden());
        QCOMPARE(controller()->modelTokens(), (QStringList{"Hello", "Ġworld"}));
    }

    // A folder without tokenizer files opens on ids alone (the Llama family's today): the field
    // switches to Token ids; Text is refused with the reason beside the field.
    void folderWithoutTokenizerTakesIds()
    {
        const QJsonObject expected = readJsonObject(modelFixture("llama-tiny") + "/expected.json");
        m_window->openModelFolder(modelFixture("llama-tiny"));
        controller()->waitForIdle();
        QVERIFY(controller()->hasModel());
        QVERIFY(controller()->tokenIdsInput());
        QCOMPARE(m_window->inputModeBox()->currentIndex(), MainWindow::kTokenIdsMode);
        m_window->sentenceEdit()->setText(idsOf(expected));
        controller()->waitForIdle();
        QCOMPARE(controller()->result()->seqLen(), expected["token_ids"].toArray().size());
        QVERIFY(gridDifference(m_window->headsGrid(), expected, 0) <= testing::kContractTolerance);
        const auto good = controller()->result();

        m_window->inputModeBox()->setCurrentIndex(0);
        m_window->sentenceEdit()->setText("hello");
        controller()->waitForIdle();
        QCOMPARE(controller()->result(), good);
        QVERIFY2(m_window->sentenceError()->text().contains("no tokenizer files"),
                 qPrintable(m_window->sentenceError()->text()));

        // Closing the model goes back to text under the panel's weights.
        m_window->closeModel();
        controller()->waitForIdle();
        QVERIFY(!controller()->tokenIdsInput());
        QVERIFY(!m_window->inputModeBox()->isVisible());
        QCOMPARE(controller()->result()->config.weight_source, RunSettings::WeightSource::Random);
    }

    // A folder whose tokenizer files cannot be read opens as one without them (the command line's
    // --token-ids takes it too): the field switches to Token ids and the message bar says why;
    // text is refused beside the field, naming the file at fault.
    void folderWithBrokenTokenizerTakesIds()
    {
        QTemporaryDir folder;
        QVERIFY(copyFolder(modelFixture("gpt2-tiny"), folder.path()));
        QFile vocab(folder.filePath("vocab.json"));
        QVERIFY(vocab.open(QIODevice::WriteOnly | QIODevice::Truncate) && vocab.write("{\"a\": 0,") > 0);
        vocab.close();
        const QJsonObject expected = readJsonObject(modelFixture("gpt2-tiny") + "/expected.json");

        m_window->openModelFolder(folder.path());
        controller()->waitForIdle();
        QVERIFY(controller()->hasModel());
        QVERIFY(controller()->tokenIdsInput());
        QVERIFY(m_window->settingsPanel()->fieldError(SettingField::Model).isEmpty());
        const QString note = m_window->messageBar()->text();
        QVERIFY2(note.contains("token ids only") && note.contains("vocab.json"), qPrintable(note));

        m_window->sentenceEdit()->setText(idsOf(expected));
        controller()->waitForIdle();
        QCOMPARE(controller()->result()->seqLen(), expected["token_ids"].toArray().size());
        QCOMPARE(controller()->modelTokens().first(), QString::number(expected["token_ids"].toArray()[0].toInt()));
        QVERIFY(gridDifference(m_window->headsGrid(), expected, 0) <= testing::kContractTolerance);
        const auto good = controller()->result();

        m_window->inputModeBox()->setCurrentIndex(0);
        m_window->sentenceEdit()->setText("hello");
        controller()->waitForIdle();
        QCOMPARE(controller()->result(), good);
        const QString refused = m_window->sentenceError()->text();
        QVERIFY2(refused.contains("vocab.json") && refused.contains("choose Token ids"), qPrintable(refused));
    }
};

REGISTER_TEST_SUITE(TestModelInput, QApplication)
#include "test_model_input.moc"
