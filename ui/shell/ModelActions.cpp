#include "ui/shell/ModelActions.h"

#include "core/analysis/InductionProbe.h"
#include "core/model/ModelSession.h"
#include "core/model/ModelWeights.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/Examples.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/LayerChooser.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/RecentItems.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/shapes/ShapesPanel.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>

#include <algorithm>
#include <utility>

namespace attn {
namespace {

// Every parameter of the base model (the tied LM head adds none): embeddings, blocks, final norm.
std::int64_t baseModelParameters(const ModelWeights& w)
{
    const auto count = [](const auto& tensor) { return std::int64_t(tensor.rows()) * tensor.cols(); };
    std::int64_t total = count(w.word_embeddings) + count(w.position_embeddings) + count(w.token_type_embeddings) +
                         w.embedding_norm_weight.size() + w.embedding_norm_bias.size() + w.final_norm_weight.size() +
                         w.final_norm_bias.size();
    for (const LayerWeights& layer : w.layers)
        total += layer.attention.parameterCount() + layer.attn_norm_weight.size() + layer.attn_norm_bias.size() +
                 count(layer.mlp_gate) + count(layer.mlp_in) + layer.mlp_in_bias.size() + count(layer.mlp_out) +
                 layer.mlp_out_bias.size() + layer.mlp_norm_weight.size() + layer.mlp_norm_bias.size();
    return total;
}

constexpr ActionId kModelOnlyActions[] = {ActionId::CloseModel, ActionId::NextLayer, ActionId::PreviousLayer,
                                          ActionId::InductionProbe};

}  // namespace

ModelActions::ModelActions(MainWindow& window, AppSettings* settings, QMenu* recent_models_menu, QMenu* examples_menu)
    : QObject(&window),
      m_window(window),
      m_settings(settings),
      m_recent(new RecentItems(settings, AppSettings::RecentList::ModelFolders, recent_models_menu))
{
    AttentionController* controller = window.controller();
    connect(m_recent, &RecentItems::chosen, this, [this](const QString& dir) { openModelFolder(dir); });
    connect(controller, &AttentionController::modelOpened, this, &ModelActions::modelOpened);
    connect(controller, &AttentionController::modelClosed, this, &ModelActions::modelClosed);
    connect(controller, &AttentionController::modelPredictionsReady, this, &ModelActions::updateModelPieces);
    connect(controller, &AttentionController::exampleActiveChanged, this, &ModelActions::exampleActiveChanged);
    connect(window.inputModeBox(), &QComboBox::currentIndexChanged, this,
            [this](int index) { setTokenIdsInput(index == MainWindow::kTokenIdsMode); });
    connect(window.layerChooser(), &LayerChooser::layerChosen, this, [this](int layer) {
        if (!m_window.controller()->setLayer(layer))
            m_window.layerChooser()->setLayer(m_window.controller()->selectedLayer());
    });
    connect(window.settingsPanel(), &SettingsPanel::openModelRequested, this, &ModelActions::openModelInteractively);
    connect(window.settingsPanel(), &SettingsPanel::closeModelRequested, this, &ModelActions::closeModel);
    connect(window.viewTabs(), &ViewTabs::modelHeadActivated, this, &ModelActions::showModelHead);
    connect(window.viewTabs(), &ViewTabs::layerChosen, this, [this](int layer) {
        if (m_window.controller()->setLayer(layer))
            m_window.layerChooser()->setLayer(layer);
    });

    ActionRegistry* actions = window.actions();
    connect(actions->get(ActionId::OpenModel), &QAction::triggered, this, &ModelActions::openModelInteractively);
    connect(actions->get(ActionId::CloseModel), &QAction::triggered, this, &ModelActions::closeModel);
    connect(actions->get(ActionId::InductionProbe), &QAction::triggered, this, &ModelActions::runInductionProbe);
    connect(actions->get(ActionId::NextLayer), &QAction::triggered, this, [this] { stepLayer(1); });
    connect(actions->get(ActionId::PreviousLayer), &QAction::triggered, this, [this] { stepLayer(-1); });
    for (ActionId id : kModelOnlyActions)
        actions->get(id)->setEnabled(false);  // with a whole model only

    QAction* toy = examples_menu->addAction(Examples::toyTitle());
    toy->setToolTip(
        tr("Three 4-dimensional rows and one hand-written head, scores not scaled: "
           "small enough to check every number of the walkthrough by hand"));
    connect(toy, &QAction::triggered, this, &ModelActions::showToyExampleInteractively);
}

QMenu* ModelActions::recentModelsMenu() const
{
    return m_recent->menu();
}

void ModelActions::openModelFolder(const QString& dir, int layer)
{
    m_restoring = false;
    m_window.controller()->openModel(QFileInfo(dir).absoluteFilePath(), layer);
    showOpening(dir);
}

void ModelActions::restore(const QString& dir, int layer, bool token_ids_input, const QString& token_ids)
{
    openModelFolder(dir, layer);
    m_restoring = true;
    showOpening(dir);
    if (token_ids_input)
        setTokenIds(token_ids);
    else
        m_other_mode_text = token_ids;
}

void ModelActions::save() const
{
    AttentionController* controller = m_window.controller();
    // An example is not a setting: what it replaced is remembered instead.
    const bool example = controller->showsExample();
    m_settings->setSentence(example ? m_sentence_before_example : textSentence());
    m_settings->setTokenIds(tokenIdsText());
    // A folder still being read (closed right after the start) is remembered as it was asked for.
    const bool model = controller->hasModel() || controller->isOpeningModel();
    m_settings->setModelFolder(controller->isOpeningModel() ? controller->openingModelDir()
                               : model                      ? controller->model()->dir()
                                                            : QString());
    m_settings->setModelLayer(model ? controller->selectedLayer() : 0);
    m_settings->setTokenIdsInput(model && controller->tokenIdsInput());
    m_settings->setRunSettings(example ? m_config_before_example : controller->config());
}

void ModelActions::showOpening(const QString& dir)
{
    if (!m_window.controller()->isOpeningModel())
        return;
    // A large model takes seconds to read: say so, and keep what it will not take from being edited.
    const QString name = QFileInfo(dir).fileName();
    m_window.messageBar()->showInfo(m_restoring
                                        ? tr("Opening %1, the model open when the window was closed\u2026").arg(name)
                                        : tr("Opening %1\u2026").arg(name));
    setKvSentenceAvailable(false);
}

void ModelActions::setKvSentenceAvailable(bool available)
{
    m_window.kvSentenceEdit()->setEnabled(available);
    const auto result = m_window.result();
    m_window.kvTokenStrip()->setVisible(available && result && result->isCross());
}

void ModelActions::closeModel()
{
    m_window.controller()->closeModel();
}

void ModelActions::openModelInteractively()
{
    const QString dir = QFileDialog::getExistingDirectory(&m_window, tr("Open model folder"), m_recent->dialogFolder());
    if (!dir.isEmpty())
        openModelFolder(dir);
}

QString ModelActions::textSentence() const
{
    return m_window.controller()->tokenIdsInput() ? m_other_mode_text : m_window.sentenceEdit()->text();
}

QString ModelActions::tokenIdsText() const
{
    return m_window.controller()->tokenIdsInput() ? m_window.sentenceEdit()->text() : m_other_mode_text;
}

void ModelActions::setTokenIdsInput(bool token_ids)
{
    QComboBox* mode = m_window.inputModeBox();
    QLineEdit* sentence = m_window.sentenceEdit();
    AttentionController* controller = m_window.controller();
    {
        const QSignalBlocker block(mode);
        mode->setCurrentIndex(token_ids ? MainWindow::kTokenIdsMode : 0);
    }
    if (token_ids == controller->tokenIdsInput())
        return;
    if (token_ids)
        mode->setVisible(true);
    // Each mode keeps its own text: the sentence is still there when the user goes back to Text.
    QString shown = std::exchange(m_other_mode_text, sentence->text());
    if (token_ids && shown.trimmed().isEmpty())
        shown = startingTokenIds();
    {
        const QSignalBlocker block(sentence);
        sentence->setText(shown);
    }
    sentence->setPlaceholderText(token_ids ? tr("Type token ids, e.g. 464, 3797, 318") : tr("Type a sentence…"));
    m_window.viewTabs()->setSentence(shown);
    controller->setTokenIdsInput(token_ids);
    controller->setSentence(shown);
}

QString ModelActions::startingTokenIds() const
{
    const auto model = m_window.controller()->model();
    if (!model)
        return QString();
    QStringList ids;
    if (const auto run = m_window.controller()->modelRun()) {
        for (int id : run->token_ids)
            ids << QString::number(id);
        return ids.join(QStringLiteral(", "));
    }
    const ModelConfig& config = model->config();
    int count = std::min(kStartingIdCount, config.vocab_size);
    if (config.max_positions > 0)
        count = std::min(count, config.max_positions);
    for (int id = 0; id < count; ++id)
        ids << QString::number(id);
    return ids.join(QStringLiteral(", "));
}

void ModelActions::setTokenIds(const QString& ids)
{
    if (m_window.controller()->tokenIdsInput()) {
        m_window.sentenceEdit()->setText(ids);
        return;
    }
    m_other_mode_text = ids;
    setTokenIdsInput(true);
}

void ModelActions::modelOpened(const QString& dir)
{
    AttentionController* controller = m_window.controller();
    const auto model = controller->model();
    const ModelConfig& config = model->config();
    MessageBar* bar = m_window.messageBar();
    m_recent->add(dir);
    m_window.settingsPanel()->showModel(config, dir, baseModelParameters(model->model().weights()));
    LayerChooser* chooser = m_window.layerChooser();
    chooser->setLayerCount(config.num_layers);
    chooser->setLayer(controller->selectedLayer());
    chooser->setVisible(true);
    m_window.viewTabs()->shapesPanel()->setModelConfig(&config);
    bar->hide();  // the opening message, or a refusal before this one, is no longer true
    m_restoring = false;
    m_window.inputModeBox()->setVisible(true);
    if (!model->tokenizer()) {
        // Ids are all such a folder takes: the ids typed before, or the first few of its
        // vocabulary, so that the views show this model at once and nothing is refused yet.
        const bool typed = !tokenIdsText().trimmed().isEmpty();
        if (typed)
            setTokenIdsInput(true);
        else
            setTokenIds(startingTokenIds());
        if (model->tokenizerBroken())  // its files are there: say why their text is not read
            bar->showInfo(tr("%1 opened for token ids only: its tokenizer cannot be read: %2")
                              .arg(QFileInfo(dir).fileName(), model->tokenizerProblem()));
        else if (!typed)
            bar->showInfo(tr("%1 has no tokenizer files: it reads token ids. The field starts with the ids "
                             "%2; type your own, e.g. from the model's tokenizer elsewhere.")
                              .arg(QFileInfo(dir).fileName(), m_window.sentenceEdit()->text()));
    }
    // A model takes its own mask and has no second sentence: those controls wait for it to close.
    setKvSentenceAvailable(false);
    m_window.actions()->get(ActionId::Causal)->setEnabled(false);
    for (ActionId id : kModelOnlyActions)
        m_window.actions()->get(id)->setEnabled(true);
    m_window.setWindowTitle(tr("%1 — attention-lab").arg(QFileInfo(dir).fileName()));
}

void ModelActions::runInductionProbe()
{
    const std::shared_ptr<const ModelSession> model = m_window.controller()->model();
    if (!model)
        return;
    const ModelConfig& config = model->config();
    // 2 x 40 ids as TransformerLens's tests use about, fewer where the positions end sooner.
    int length = kInductionProbeLength;
    if (config.max_positions > 0)
        length = std::min(length, config.max_positions / 2);
    QStringList ids;
    for (int id : InductionProbe::tokens(length, config.vocab_size))
        ids << QString::number(id);
    setTokenIds(ids.join(QStringLiteral(", ")));
    ModelView* view = m_window.viewTabs()->modelView();
    view->orderBox()->setCurrentIndex(view->orderBox()->findData(QStringLiteral("induction")));
    view->marksBox()->setCurrentIndex(view->marksBox()->findData(QStringLiteral("induction")));
    m_window.setCurrentView(View::Model);
    m_window.messageBar()->showInfo(
        tr("Induction probe: %1 random token ids, then the same %1 again. Induction heads attend "
           "from each token of the second copy to the token after its first occurrence.")
            .arg(length));
}

void ModelActions::modelClosed()
{
    SettingsPanel* panel = m_window.settingsPanel();
    panel->clearModel();
    panel->setConfig(m_window.controller()->config());
    m_window.viewTabs()->clearModel();
    m_window.viewTabs()->shapesPanel()->setModelConfig(nullptr);
    m_window.layerChooser()->setVisible(false);
    setTokenIdsInput(false);  // the weights in the panel take text
    m_window.inputModeBox()->setVisible(false);
    setKvSentenceAvailable(true);
    m_window.actions()->get(ActionId::Causal)->setEnabled(true);
    for (ActionId id : kModelOnlyActions)
        m_window.actions()->get(id)->setEnabled(false);
    m_window.setWindowTitle(tr("attention-lab"));
}

void ModelActions::showModelError(const QString& message)
{
    if (message.isEmpty())
        return;
    AttentionController* controller = m_window.controller();
    MessageBar* bar = m_window.messageBar();
    if (!controller->hasModel() && !controller->isOpeningModel()) {
        setTokenIdsInput(false);  // no model to take ids: back to the sentence
        m_window.inputModeBox()->setVisible(false);
        setKvSentenceAvailable(true);  // it waited for the folder
    }
    if (std::exchange(m_restoring, false))
        bar->showError(
            tr("The saved model could not be opened; using the weights in the settings panel. %1").arg(message));
    else if (controller->hasModel())
        bar->showError(tr("Model not opened, the model in use stays: %1").arg(message));
    else
        bar->showError(tr("Model not opened, the weights in use stay: %1").arg(message));
}

void ModelActions::stepLayer(int step)
{
    AttentionController* controller = m_window.controller();
    if (!controller->hasModel())
        return;
    const int layer = controller->selectedLayer() + step;
    if (layer >= 0 && layer < m_window.layerChooser()->layerCount())
        controller->setLayer(layer);
}

void ModelActions::showModelHead(int layer, int head)
{
    AttentionController* controller = m_window.controller();
    if (controller->hasModel() && layer != controller->selectedLayer() && !controller->setLayer(layer))
        return;
    m_window.viewTabs()->openHead(head);
}

void ModelActions::updateModelPieces()
{
    AttentionController* controller = m_window.controller();
    const auto model = controller->model();
    const auto run = controller->modelRun();
    if (!model || !run)
        return;
    const bool byte_level = model->byteLevelTokens();
    const QStringList& spelled = controller->modelTokens();
    std::vector<TokenStrip::Piece> pieces;
    pieces.reserve(size_t(run->seqLen()));
    for (int i = 0; i < run->seqLen() && i < spelled.size(); ++i)
        pieces.push_back(TokenStrip::modelPiece(spelled[i], run->token_ids[size_t(i)], byte_level,
                                                pieces.empty() ? nullptr : &pieces.back()));
    // The head's top 5 where it predicts: the next token (GPT-2) or the masked one (BERT family).
    const QLocale locale;
    for (const TokenPrediction& prediction : controller->modelPredictions()) {
        if (prediction.position < 0 || size_t(prediction.position) >= pieces.size())
            continue;
        QStringList lines;
        lines << (model->config().causal ? tr("Next token, top 5 (logit):") : tr("This token, top 5 (logit):"));
        for (size_t k = 0; k < prediction.ids.size(); ++k) {
            const TokenStrip::Piece candidate =
                TokenStrip::modelPiece(model->tokenText(prediction.ids[k]), prediction.ids[k], byte_level);
            const QString shown = (candidate.leading_space ? QStringLiteral("\u2423") : QString()) + candidate.text;
            lines << QStringLiteral("  %1  %2  (id %3)")
                         .arg(shown)
                         .arg(locale.toString(double(prediction.logits[k]), 'f', 2))
                         .arg(prediction.ids[k]);
        }
        pieces[size_t(prediction.position)].predictions = lines.join(QLatin1Char('\n'));
    }
    m_window.tokenStrip()->setPieces(pieces);
}

void ModelActions::showToyExampleInteractively()
{
    AttentionController* controller = m_window.controller();
    if (controller->hasModel() || controller->isOpeningModel()) {
        // An example replaces the model, which may have taken a while to open: ask first.
        const QString dir = controller->hasModel() ? controller->model()->dir() : controller->openingModelDir();
        QMessageBox box(QMessageBox::Question, tr("Show the example"),
                        tr("Showing “%1” closes the model %2.").arg(Examples::toyTitle(), QFileInfo(dir).fileName()),
                        QMessageBox::Cancel, &m_window);
        box.setObjectName(QStringLiteral("CloseModelForExample"));
        QPushButton* close = box.addButton(tr("Close the model and show the example"), QMessageBox::AcceptRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != close)
            return;
    }
    if (Status shown = showToyExample(); !shown)
        m_window.messageBar()->showError(tr("The example could not be loaded: %1").arg(shown.error()));
}

Status ModelActions::showToyExample()
{
    auto example = Examples::toyFourDim(QStringLiteral(":/examples"));
    if (!example)
        return Error{example.error()};
    AttentionController* controller = m_window.controller();
    QLineEdit* sentence = m_window.sentenceEdit();
    if (!controller->showsExample()) {
        m_config_before_example = controller->config();
        m_sentence_before_example = sentence->text();
    }
    controller->setExample(*example);
    m_window.viewTabs()->selectHead(0);  // an example starts at its first head and row
    m_window.viewTabs()->selectInWalkthrough(0, 0);
    {
        const QSignalBlocker block(sentence);
        sentence->clear();
    }
    sentence->setPlaceholderText(tr("Showing “%1”: type a sentence to return to your settings").arg(example->title));
    m_window.messageBar()->showInfo(tr("Example: %1. Its rows and weights replace the sentence and the settings; "
                                       "the walkthrough shows every number.")
                                        .arg(example->title));
    return {};
}

void ModelActions::leaveExampleForSentence(const QString& text)
{
    AttentionController* controller = m_window.controller();
    controller->blockSignals(true);  // the sentence under the example's weights is not shown
    controller->setSentence(text);
    controller->blockSignals(false);
    exampleActiveChanged(false);
    if (!controller->setConfig(m_config_before_example))
        controller->setConfig(RunSettings{});
}

void ModelActions::exampleActiveChanged(bool active)
{
    if (active)
        return;
    // Back to sentences (typed, or other weights chosen in the panel).
    QLineEdit* sentence = m_window.sentenceEdit();
    sentence->setPlaceholderText(tr("Type a sentence…"));
    m_window.messageBar()->hide();
    if (sentence->text().isEmpty() && !m_sentence_before_example.isEmpty()) {
        const QSignalBlocker block(sentence);
        sentence->setText(m_sentence_before_example);
    }
}

}  // namespace attn
