// Whole models in the window, offscreen: the tiny fixture folders (tests/fixtures/models) opened
// through the window and its controller, the grid's values against the committed expected
// attention of every layer, the layer chooser (no forward pass when the layer changes), the token
// strip's pieces and hover texts, recent models, closing a model, and the Model tab's seam
// (showModelHead). Refusals are in test_model_window_refusals.
#include "core/model/ModelSession.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/Float32Bounds.h"
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
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

#include <memory>

using namespace attn;
using namespace attn::testing;
using attn::test::expectedOf;

namespace {

// The largest |grid - expected| over every head of the grid for layer `layer`.
double gridDifference(HeadsGrid* grid, const QJsonArray& layer)
{
    double worst = 0;
    for (int head = 0; head < layer.size(); ++head) {
        const Matrix& shown = grid->plot(head)->values();  // (T, T): queries as rows
        const QJsonArray rows = layer[head].toArray();
        if (shown.rows() != rows.size())
            return 1e9;
        for (int q = 0; q < rows.size(); ++q) {
            const QJsonArray row = rows[q].toArray();
            for (int k = 0; k < row.size(); ++k)
                worst = std::max(worst, std::abs(double(shown(q, k)) - row[k].toDouble()));
        }
    }
    return worst;
}

}  // namespace

class TestModelWindow : public attn::test::ModelWindowTest {
    Q_OBJECT

private slots:
    // The grid shows the model's own attention for the sentence, layer by layer: the committed
    // expected attention of the PyTorch reference within the contract's 2e-5 (as
    // test_model_agreement's whole runs: float32 through every layer against float64).
    void gridShowsEachLayersAttention_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"gpt2-tiny", "bert-tiny", "distilbert-tiny"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void gridShowsEachLayersAttention()
    {
        QFETCH(QString, name);
        const QJsonObject expected = expectedOf(name);
        QVERIFY(!expected.isEmpty());
        QSignalSpy runs(controller(), &AttentionController::modelRunReady);
        open(modelFixture(name), expected["sentence"].toString());
        QVERIFY2(controller()->hasModel(), qPrintable(m_window->messageBar()->text()));
        QCOMPARE(runs.count(), 1);

        QStringList tokens;
        for (const QJsonValue& token : expected["tokens"].toArray())
            tokens << token.toString();
        QCOMPARE(controller()->modelTokens(), tokens);
        QCOMPARE(runs.first().at(1).toStringList(), tokens);
        const auto run = controller()->modelRun();
        for (int i = 0; i < run->seqLen(); ++i)
            QCOMPARE(run->token_ids[size_t(i)], expected["token_ids"].toArray()[i].toInt());

        m_window->setCurrentView(View::Grid);
        // The views label the tokens as they read: GPT-2's Ġ as ␣, BERT's ## kept (no chip to join).
        const QString label = m_window->headsGrid()->plot(0)->rowLabel(name == "gpt2-tiny" ? 2 : 4);
        QCOMPARE(label, name == "gpt2-tiny"   ? QStringLiteral("\u2423isn")
                        : name == "bert-tiny" ? QStringLiteral("##ization")
                                              : QStringLiteral("##es"));
        const QJsonArray attention = expected["attention"].toArray();
        for (int layer : {0, 1}) {
            QVERIFY(controller()->setLayer(layer));
            controller()->waitForIdle();
            QCOMPARE(controller()->result()->config.layer, layer);
            QCOMPARE(m_window->headsGrid()->headCount(), attention[layer].toArray().size());
            const double difference = gridDifference(m_window->headsGrid(), attention[layer].toArray());
            QVERIFY2(difference <= testing::kContractTolerance, qPrintable(QStringLiteral("layer %1: %2").arg(layer).arg(difference)));
        }
    }

    // Choosing a layer (chooser, Alt+PgDn / Alt+PgUp) runs no forward pass: the run keeps every
    // layer's maps and inputs; the other layer's Q, K, V, made again from its kept input, are the
    // reference's (the contract's 2e-5 of the largest value, as test_model_agreement).
    void layerChooserRunsNoForwardPass()
    {
        const QJsonObject expected = expectedOf("gpt2-tiny");
        open(modelFixture("gpt2-tiny"), expected["sentence"].toString());
        QVERIFY(controller()->hasModel());
        QVERIFY(m_window->layerChooser()->isVisible());
        QCOMPARE(m_window->layerChooser()->layerCount(), 2);
        const int passes = controller()->forwardPasses();
        const auto run = controller()->modelRun();

        m_window->actions()->get(ActionId::NextLayer)->trigger();
        controller()->waitForIdle();
        QCOMPARE(controller()->selectedLayer(), 1);
        QCOMPARE(m_window->layerChooser()->layer(), 1);
        QCOMPARE(controller()->result()->config.layer, 1);
        QCOMPARE(controller()->forwardPasses(), passes);
        QCOMPARE(controller()->modelRun(), run);

        const QJsonObject layer_inputs = expected["layer_inputs"].toObject();
        const int kept_layer = layer_inputs["layer"].toInt();
        QVERIFY(controller()->setLayer(kept_layer));
        controller()->waitForIdle();
        const QJsonArray q = layer_inputs["q"].toArray();
        const Matrix& got = controller()->result()->trace.q;  // (T, C)
        QCOMPARE(int(got.rows()), int(q.size()));
        double largest = 0, worst = 0;
        for (int t = 0; t < q.size(); ++t)
            for (int c = 0; c < q[t].toArray().size(); ++c) {
                const double want = q[t].toArray()[c].toDouble();
                largest = std::max(largest, std::abs(want));
                worst = std::max(worst, std::abs(want - double(got(t, c))));
            }
        QVERIFY2(worst <= testing::kContractTolerance * largest, qPrintable(QString::number(worst)));
        QVERIFY(controller()->result()->trace.hasScores());  // the walkthrough's raw scores

        m_window->actions()->get(ActionId::PreviousLayer)->trigger();
        controller()->waitForIdle();
        QCOMPARE(controller()->selectedLayer(), kept_layer == 0 ? 0 : kept_layer - 1);
        m_window->layerChooser()->slider()->setValue(1);  // the slider moves the spin box and the views
        controller()->waitForIdle();
        QCOMPARE(controller()->selectedLayer(), 1);
        QCOMPARE(m_window->layerChooser()->spinBox()->value(), 1);
        QCOMPARE(controller()->forwardPasses(), passes);

        // Help › Keyboard shortcuts lists the layer keys.
        const QString shortcuts = m_window->actions()->shortcutsHtml();
        for (ActionId id : {ActionId::NextLayer, ActionId::PreviousLayer}) {
            const QString keys = m_window->actions()->get(id)->shortcut().toString(QKeySequence::NativeText);
            QVERIFY2(!keys.isEmpty() && shortcuts.contains(keys.toHtmlEscaped()), qPrintable(keys));
        }
        QVERIFY(!controller()->setLayer(2));  // two layers: 0 and 1
        QCOMPARE(controller()->selectedLayer(), 1);

        // A layer chosen while the pass of a new sentence is queued: the newer request runs
        // that pass (the queued one is dropped as stale), it does not show the old run.
        m_window->sentenceEdit()->setText("hello world");
        QVERIFY(controller()->setLayer(0));
        controller()->waitForIdle();
        QCOMPARE(controller()->modelTokens(), (QStringList{"hello", "Ġworld"}));
        QCOMPARE(controller()->result()->config.layer, 0);
        QCOMPARE(controller()->result()->seqLen(), 2);
        QCOMPARE(controller()->modelPredictions().size(), size_t(2));  // GPT-2: after each position
        // Layers chosen while the predictions are computed: they come all the same.
        QVERIFY(controller()->setLayer(1));
        QVERIFY(controller()->setLayer(0));
        controller()->waitForIdle();
        QCOMPARE(controller()->modelPredictions().size(), size_t(2));
    }

    // The strip shows the model's pieces: GPT-2's Ġ as a marked leading space and the pieces of a
    // word joined; BERT's ## joined, its special tokens apart; hovering gives the id and the
    // head's top 5 (GPT-2: the next token at every position; BERT: at [MASK]).
    void tokenStripShowsTheModelsPieces()
    {
        const QJsonObject gpt2 = expectedOf("gpt2-tiny");
        open(modelFixture("gpt2-tiny"), gpt2["sentence"].toString());
        TokenStrip* strip = m_window->tokenStrip();
        QCOMPARE(int(strip->pieces().size()), 12);
        const TokenStrip::Piece& att = strip->pieces()[0];  // "Att"
        const TokenStrip::Piece& ention = strip->pieces()[1];
        const TokenStrip::Piece& isn = strip->pieces()[2];  // "Ġisn"
        QCOMPARE(att.text, QStringLiteral("Att"));
        QVERIFY(!att.leading_space && !att.continuation);
        QCOMPARE(ention.text, QStringLiteral("ention"));
        QVERIFY(ention.continuation);
        QCOMPARE(isn.text, QStringLiteral("isn"));
        QVERIFY(isn.leading_space && !isn.continuation);
        QCOMPARE(strip->tokens()[2], QStringLiteral("isn"));
        const QString tip = strip->toolTipFor(1);
        QVERIFY2(tip.contains("“ention”") && tip.contains("id 1463"), qPrintable(tip));
        // The top 5 follow the result; the best next token after "Att" is the reference's.
        const int best = gpt2["top5"].toArray()[0].toObject()["ids"].toArray()[0].toInt();
        QVERIFY2(strip->toolTipFor(0).contains(QStringLiteral("Next token")) &&
                     strip->toolTipFor(0).contains(QStringLiteral("(id %1)").arg(best)),
                 qPrintable(strip->toolTipFor(0)));

        const QJsonObject bert = expectedOf("bert-tiny");
        open(modelFixture("bert-tiny"), bert["sentence"].toString());
        const auto& pieces = strip->pieces();
        QCOMPARE(int(pieces.size()), 12);
        QVERIFY(pieces[0].special);   // [CLS]
        QVERIFY(pieces[11].special);  // [SEP]
        QVERIFY(pieces[7].special);   // [MASK]
        QCOMPARE(pieces[4].text, QStringLiteral("ization"));
        QVERIFY(pieces[4].continuation);
        QVERIFY(!pieces[3].continuation);
        const int masked_best = bert["top5"].toArray()[0].toObject()["ids"].toArray()[0].toInt();
        QVERIFY2(strip->toolTipFor(7).contains(QStringLiteral("(id %1)").arg(masked_best)),
                 qPrintable(strip->toolTipFor(7)));
        QVERIFY(pieces[3].predictions.isEmpty());  // BERT predicts at [MASK] only
    }

    // Llama checkpoints through their tokenizer.json: a byte-level one (Llama 3) and a
    // SentencePiece one (Llama 2) both read as words with their leading spaces, not as "Ġsee" or
    // "▁c" (tests/data/tokenizers, small enough for llama-tiny's embeddings).
    void tokenStripReadsLlamaTokenizers()
    {
        for (const char* tokenizer : {"llama3-tiny", "llama2-tiny"}) {
            const QString dir = m_dir.filePath(tokenizer);
            QVERIFY(copyFolder(modelFixture("llama-tiny"), dir));
            QVERIFY(QFile::copy(sourcePath("tests/data/tokenizers/") + tokenizer + "/tokenizer.json",
                                dir + "/tokenizer.json"));
            open(dir, "the cat");
            QCOMPARE(openModelDir(), QDir(dir).absolutePath());
            const auto& pieces = m_window->tokenStrip()->pieces();
            QVERIFY2(pieces.size() >= 3, tokenizer);
            QVERIFY(pieces[0].special);                                // <|begin_of_text|> / <s>
            const TokenStrip::Piece& cat = pieces[pieces.size() - 2];  // "Ġc" / "▁c", then "at"
            QCOMPARE(cat.text, QStringLiteral("c"));
            QVERIFY(cat.leading_space);
            QCOMPARE(pieces.back().text, QStringLiteral("at"));
        }
    }

    // A spelling as the strip reads it: GPT-2's bytes decoded (a piece that splits a character
    // keeps its spelling), controls made visible, BERT's ## and the special tokens.
    void pieceOfASpelling_data()
    {
        QTest::addColumn<QString>("spelled");
        QTest::addColumn<bool>("byte_level");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("leading_space");
        QTest::addColumn<bool>("special");
        QTest::newRow("Ġcat") << QStringLiteral("Ġcat") << true << "cat" << true << false;
        QTest::newRow("right quote") << QStringLiteral("âĢĻ") << true << QStringLiteral("\u2019") << false << false;
        QTest::newRow("half a character") << QStringLiteral("âĢ") << true << QStringLiteral("âĢ") << false << false;
        QTest::newRow("line feed") << QStringLiteral("Ċ") << true << QStringLiteral("\u21B5") << false << false;
        QTest::newRow("é after a space") << QStringLiteral("ĠÃ©") << true << QStringLiteral("é") << true << false;
        QTest::newRow("endoftext") << "<|endoftext|>" << true << "<|endoftext|>" << false << true;
        QTest::newRow("##ing") << "##ing" << false << "ing" << false << false;
        QTest::newRow("[CLS]") << "[CLS]" << false << "[CLS]" << false << true;
        QTest::newRow("##") << "##" << false << "##" << false << false;
    }
    void pieceOfASpelling()
    {
        QFETCH(QString, spelled);
        QFETCH(bool, byte_level);
        QFETCH(QString, text);
        QFETCH(bool, leading_space);
        QFETCH(bool, special);
        const TokenStrip::Piece piece = TokenStrip::modelPiece(spelled, 1, byte_level);
        QCOMPARE(piece.text, text);
        QCOMPARE(piece.leading_space, leading_space);
        QCOMPARE(piece.special, special);
        QCOMPARE(piece.continuation, !byte_level && spelled.startsWith("##") && spelled.size() > 2);
    }

    // The panel shows the model's configuration instead of the weights' fields; Close model
    // brings the fields and random weights back.
    void panelShowsTheModelAndCloseModelRestores()
    {
        SettingsPanel* panel = m_window->settingsPanel();
        QVERIFY(panel->dModelBox()->isVisibleTo(panel));
        open(modelFixture("bert-tiny"), "hello world");
        QVERIFY(panel->showsModel());
        QVERIFY(!panel->dModelBox()->isVisibleTo(panel));
        const QString info = panel->modelInfoText();
        for (const char* part : {"bert", "Layers", "KV heads", "Vocabulary", "Positions", "Parameters"})
            QVERIFY2(info.contains(QLatin1String(part)), qPrintable(info));
        QVERIFY(!m_window->actions()->get(ActionId::Causal)->isEnabled());

        QSignalSpy closed(controller(), &AttentionController::modelClosed);
        m_window->actions()->get(ActionId::CloseModel)->trigger();
        controller()->waitForIdle();
        QCOMPARE(closed.count(), 1);
        QVERIFY(!controller()->hasModel());
        QVERIFY(!panel->showsModel());
        QVERIFY(panel->dModelBox()->isVisibleTo(panel));
        QVERIFY(!m_window->layerChooser()->isVisible());
        QCOMPARE(controller()->result()->config.weight_source, RunSettings::WeightSource::Random);
        QCOMPARE(m_window->tokenStrip()->tokens(), (QStringList{"hello", "world"}));
        QVERIFY(m_window->actions()->get(ActionId::Causal)->isEnabled());
    }

    // A grouped-query model with a SwiGLU MLP (llama-tiny, given a one-character-per-token vocabulary
    // so that the window can tokenize): the panel counts its parameters as model-shapes does
    // (22,688: the gate projection included, k_proj and v_proj h_kv·d_k wide).
    void panelCountsTheParametersOfALlamaModel()
    {
        QTemporaryDir root;
        const QString dir = root.filePath("llama");
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(copyFolder(modelFixture("llama-tiny"), dir));
        QJsonObject vocab;
        for (int byte = 33; byte < 127; ++byte)
            vocab.insert(QString(QChar(byte)), byte - 33);
        vocab.insert(QString(QChar(0x120)), 94);  // byte-level space
        QFile vocab_file(dir + "/vocab.json");
        QVERIFY(vocab_file.open(QIODevice::WriteOnly));
        vocab_file.write(QJsonDocument(vocab).toJson());
        vocab_file.close();
        QFile merges(dir + "/merges.txt");
        QVERIFY(merges.open(QIODevice::WriteOnly));
        merges.write("#version: 0.2\n");
        merges.close();
        open(dir, "cat");
        QVERIFY2(controller()->hasModel(), qPrintable(m_window->messageBar()->text()));
        const QString info = m_window->settingsPanel()->modelInfoText();
        QVERIFY2(info.contains(QLocale().toString(qlonglong(22688))), qPrintable(info));
    }

    // Recent models are remembered in the settings, beside the recent weight files, and reopen.
    void recentModels()
    {
        QVERIFY(!m_window->recentModelsMenu()->isEnabled());
        open(modelFixture("gpt2-tiny"), "hello");
        open(modelFixture("bert-tiny"), "hello");
        const QStringList recent = m_settings->recentModels();
        QCOMPARE(recent.size(), 2);
        QCOMPARE(recent.first(), QFileInfo(modelFixture("bert-tiny")).absoluteFilePath());
        QVERIFY(m_settings->recentFiles().isEmpty());
        QCOMPARE(m_window->recentModelsMenu()->actions().size(), 2);
        m_window->recentModelsMenu()->actions()[1]->trigger();  // gpt2-tiny
        controller()->waitForIdle();
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("gpt2-tiny")).absoluteFilePath());
    }

    // The Model tab's table lists the heads of the layer the chooser shows, and follows it.
    void modelTabTableFollowsTheLayerChooser()
    {
        open(modelFixture("gpt2-tiny"), "hello world");
        ModelView* view = m_window->viewTabs()->modelView();
        m_window->setCurrentView(View::Model);
        view->selectLayer(1);  // a head of layer 1 framed on the grid
        view->computeNow();
        QCOMPARE(view->metricsTable()->item(0, 0)->text(), QStringLiteral("L1 H0"));
        // The chooser says 0 on opening a model: so does the table.
        open(modelFixture("bert-tiny"), "hello world");
        view->computeNow();
        QCOMPARE(m_window->layerChooser()->layer(), 0);
        QTRY_VERIFY(view->metricsTable()->rowCount() > 0);
        QCOMPARE(view->metricsTable()->item(0, 0)->text(), QStringLiteral("L0 H0"));
        // Another layer chosen: the table follows.
        m_window->actions()->get(ActionId::NextLayer)->trigger();
        controller()->waitForIdle();
        QCOMPARE(m_window->layerChooser()->layer(), 1);
        QCOMPARE(view->metricsTable()->item(0, 0)->text(), QStringLiteral("L1 H0"));
    }

    // Two folders of the same name are told apart in the menu by their parents.
    void recentModelsOfTheSameNameAreToldApart()
    {
        QTemporaryDir root;
        for (const char* parent : {"first", "second"}) {
            const QString dir = root.filePath(QStringLiteral("%1/gpt2").arg(QLatin1String(parent)));
            QVERIFY(QDir().mkpath(dir));
            QVERIFY(copyFolder(modelFixture("gpt2-tiny"), dir));
            open(dir, "hello");
            QVERIFY(controller()->hasModel());
        }
        QStringList shown;
        for (QAction* action : m_window->recentModelsMenu()->actions())
            shown << action->text();
        QCOMPARE(shown, (QStringList{"&1 second/gpt2", "&2 first/gpt2"}));
    }

    // A folder dropped on the window opens as a model (a file as weights, as before); File ›
    // Open model folder is Ctrl+Shift+O.
    void droppingAFolderOpensIt()
    {
        QCOMPARE(m_window->actions()->get(ActionId::OpenModel)->shortcut(),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(modelFixture("distilbert-tiny"))});
        // As a drag delivers them: the enter (which the window accepts), then the drop.
        QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &drop);
        controller()->waitForIdle();
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("distilbert-tiny")).absoluteFilePath());
        QCOMPARE(controller()->modelTokens().first(), QStringLiteral("[CLS]"));
    }

    // The Model tab's seam: a (layer, head) opens in One head.
    void showModelHeadOpensTheHead()
    {
        open(modelFixture("gpt2-tiny"), "hello world again");
        m_window->showModelHead(1, 2);
        controller()->waitForIdle();
        QCOMPARE(controller()->selectedLayer(), 1);
        QCOMPARE(m_window->currentView(), View::Head);
        QCOMPARE(m_window->headView()->head(), 2);
        QCOMPARE(controller()->result()->config.layer, 1);
    }

    // Compare: side B is another layer of the same run, (layer, head) against (layer, head).
    void compareTwoLayers()
    {
        const QJsonObject expected = expectedOf("gpt2-tiny");
        open(modelFixture("gpt2-tiny"), expected["sentence"].toString());
        m_window->setCurrentView(View::Compare);
        CompareView* compare = m_window->viewTabs()->compareView();
        compare->setOtherSettings(true);
        QVERIFY(!compare->causalBox()->isVisibleTo(compare));  // a model has its own mask
        compare->layerBox()->setValue(1);
        controller()->waitForIdle();
        const auto b = compare->resultB();
        QVERIFY2(b, qPrintable(compare->variantError()));
        QCOMPARE(b->config.layer, 1);
        const QJsonArray layer1 = expected["attention"].toArray()[1].toArray();
        const QJsonArray head0 = layer1[0].toArray();
        for (int q = 0; q < head0.size(); ++q)
            for (int k = 0; k < head0.size(); ++k)
                QVERIFY(std::abs(double(b->trace.probabilities[0](q, k)) - head0[q].toArray()[k].toDouble()) <= testing::kContractTolerance);
        QCOMPARE(controller()->result()->config.layer, 0);  // side A stays on the chosen layer
        // The titles name the (layer, head) of each side.
        QVERIFY2(compare->figure()->plotA()->title().contains("layer 0"),
                 qPrintable(compare->figure()->plotA()->title()));
        QVERIFY2(compare->figure()->plotB()->title().contains("layer 1"),
                 qPrintable(compare->figure()->plotB()->title()));
    }

    // A folder opened while a weight file is still being read wins: the file is dropped (not
    // remembered, not used once the model is closed) and the settings go back to the weights in use.
    void folderOpenedWhileAFileIsReadWins()
    {
        m_window->sentenceEdit()->setText("hello world");
        controller()->waitForIdle();
        QSignalSpy loaded(controller(), &AttentionController::weightsFileLoaded);
        m_window->openWeightsFile(attn::testing::fixturesPath("attention/weights/gpt2_f32.safetensors"));
        QVERIFY(controller()->isLoadingWeightFile());
        m_window->openModelFolder(modelFixture("gpt2-tiny"));
        QVERIFY(!controller()->isLoadingWeightFile());
        QCOMPARE(controller()->config().weight_source, RunSettings::WeightSource::Random);
        controller()->waitForIdle();
        QCOMPARE(openModelDir(), QFileInfo(modelFixture("gpt2-tiny")).absoluteFilePath());
        QCOMPARE(loaded.count(), 0);
        QVERIFY(m_settings->recentFiles().isEmpty());
        m_window->closeModel();
        controller()->waitForIdle();
        QCOMPARE(loaded.count(), 0);
        QCOMPARE(controller()->result()->config.weight_source, RunSettings::WeightSource::Random);
    }

    // Examples › Toy with a model open asks before it closes the model: cancelled, the model and
    // its result stay; confirmed, the example replaces the model.
    void toyExampleAsksBeforeClosingTheModel()
    {
        open(modelFixture("gpt2-tiny"), "hello world");
        const auto model_result = controller()->result();
        QAction* toy = m_window->examplesMenu()->actions().value(0);
        QVERIFY(toy);
        QString asked;
        const auto answer = [this, &asked](QMessageBox::ButtonRole role) {
            QTimer::singleShot(0, this, [this, &asked, role] {
                auto* box = m_window->findChild<QMessageBox*>("CloseModelForExample");
                QVERIFY(box);
                asked = box->text();
                for (QAbstractButton* button : box->buttons())
                    if (box->buttonRole(button) == role)
                        button->click();
            });
        };
        answer(QMessageBox::RejectRole);
        toy->trigger();
        QVERIFY2(asked.contains("gpt2-tiny"), qPrintable(asked));
        QVERIFY(controller()->hasModel());
        QVERIFY(!controller()->showsExample());
        QCOMPARE(controller()->result(), model_result);

        asked.clear();
        answer(QMessageBox::AcceptRole);
        toy->trigger();
        controller()->waitForIdle();
        QVERIFY(!asked.isEmpty());
        QVERIFY(!controller()->hasModel());
        QVERIFY(controller()->showsExample());

        // Without a model there is nothing to ask.
        m_window->sentenceEdit()->setText("the cat sat");
        controller()->waitForIdle();
        toy->trigger();
        QVERIFY(controller()->showsExample());
        QVERIFY(!m_window->findChild<QMessageBox*>("CloseModelForExample"));
    }
};

REGISTER_TEST_SUITE(TestModelWindow, QApplication)
#include "test_model_window.moc"
