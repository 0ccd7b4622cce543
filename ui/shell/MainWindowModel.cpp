// MainWindow, continued: whole models (open, recent, close, the layer chooser, the model's
// tokens on the strip). Split from MainWindow.cpp to keep each file small.
#include "ui/shell/MainWindow.h"

#include "core/analysis/InductionProbe.h"
#include "core/model/ModelSession.h"
#include "core/model/ModelWeights.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/LayerChooser.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/shapes/ShapesPanel.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QSignalBlocker>
#include <QStandardPaths>

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

// Each folder's name with as many of its parents as tell it apart from the others of the list:
// "gpt2" alone, "a/gpt2" and "b/gpt2" for two folders of that name.
QStringList distinctFolderNames(const QStringList& folders)
{
    QList<QStringList> parts;
    for (const QString& folder : folders)
        parts << QDir::fromNativeSeparators(folder).split(u'/', Qt::SkipEmptyParts);
    const auto tail = [&parts](int i, int depth) {
        return parts[i].mid(std::max<qsizetype>(0, parts[i].size() - depth));
    };
    QStringList names;
    for (int i = 0; i < parts.size(); ++i) {
        int depth = 1;
        for (int j = 0; j < parts.size(); ++j)
            while (j != i && depth < parts[i].size() && tail(i, depth) == tail(j, depth))
                ++depth;
        names << tail(i, depth).join(u'/');
    }
    return names;
}

}  // namespace

void MainWindow::openModelFolder(const QString& dir, int layer)
{
    m_restoring_model = false;
    m_controller->openModel(QFileInfo(dir).absoluteFilePath(), layer);
}

QString MainWindow::textSentence() const
{
    return m_controller->tokenIdsInput() ? m_other_mode_text : m_sentence->text();
}

QString MainWindow::tokenIdsText() const
{
    return m_controller->tokenIdsInput() ? m_sentence->text() : m_other_mode_text;
}

void MainWindow::setTokenIdsInput(bool token_ids)
{
    {
        const QSignalBlocker block(m_input_mode);
        m_input_mode->setCurrentIndex(token_ids ? kTokenIdsMode : 0);
    }
    if (token_ids == m_controller->tokenIdsInput())
        return;
    if (token_ids)
        m_input_mode->setVisible(true);
    // Each mode keeps its own text: the sentence is still there when the user goes back to Text.
    QString shown = std::exchange(m_other_mode_text, m_sentence->text());
    if (token_ids && shown.trimmed().isEmpty())
        shown = startingTokenIds();
    {
        const QSignalBlocker block(m_sentence);
        m_sentence->setText(shown);
    }
    m_sentence->setPlaceholderText(token_ids ? tr("Type token ids, e.g. 464, 3797, 318") : tr("Type a sentence…"));
    m_tabs->setSentence(shown);
    m_controller->setTokenIdsInput(token_ids);
    m_controller->setSentence(shown);
}

QString MainWindow::startingTokenIds() const
{
    const auto model = m_controller->model();
    if (!model)
        return QString();
    QStringList ids;
    if (const auto run = m_controller->modelRun()) {
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

void MainWindow::setTokenIds(const QString& ids)
{
    if (m_controller->tokenIdsInput()) {
        m_sentence->setText(ids);
        return;
    }
    m_other_mode_text = ids;
    setTokenIdsInput(true);
}

void MainWindow::closeModel()
{
    m_controller->closeModel();
}

void MainWindow::openModelInteractively()
{
    const QStringList recent = m_settings->recentModels();
    const QString start = recent.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::HomeLocation)
                                           : QFileInfo(recent.first()).absolutePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"), start);
    if (!dir.isEmpty())
        openModelFolder(dir);
}

void MainWindow::updateRecentModelsMenu()
{
    m_recent_models_menu->clear();
    const QStringList folders = m_settings->recentModels();
    const QStringList names = distinctFolderNames(folders);
    for (int i = 0; i < folders.size(); ++i) {
        QAction* action = m_recent_models_menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(names[i]));
        action->setToolTip(folders[i]);
        connect(action, &QAction::triggered, this, [this, dir = folders[i]] { openModelFolder(dir); });
    }
    m_recent_models_menu->setEnabled(!folders.isEmpty());
}

void MainWindow::modelOpened(const QString& dir)
{
    const auto model = m_controller->model();
    const ModelConfig& config = model->config();
    m_settings->addRecentModel(dir);
    updateRecentModelsMenu();
    m_panel->showModel(config, dir, baseModelParameters(model->model().weights()));
    m_layer_chooser->setLayerCount(config.num_layers);
    m_layer_chooser->setLayer(m_controller->selectedLayer());
    m_layer_chooser->setVisible(true);
    m_tabs->shapesPanel()->setModelConfig(&config);
    m_message->hide();  // a refusal before this one is no longer true
    m_restoring_model = false;
    m_input_mode->setVisible(true);
    if (!model->tokenizer()) {
        // Ids are all such a folder takes: the ids typed before, or the first few of its
        // vocabulary, so that the views show this model at once and nothing is refused yet.
        const bool typed = !tokenIdsText().trimmed().isEmpty();
        if (typed)
            setTokenIdsInput(true);
        else
            setTokenIds(startingTokenIds());
        if (model->tokenizerBroken())  // its files are there: say why their text is not read
            m_message->showInfo(tr("%1 opened for token ids only: its tokenizer cannot be read: %2")
                                    .arg(QFileInfo(dir).fileName(), model->tokenizerProblem()));
        else if (!typed)
            m_message->showInfo(tr("%1 has no tokenizer files: it reads token ids. The field starts with the ids "
                                   "%2; type your own, e.g. from the model's tokenizer elsewhere.")
                                    .arg(QFileInfo(dir).fileName(), m_sentence->text()));
    }
    // A model takes its own mask and has no second sentence: those controls wait for it to close.
    m_kv_sentence->setEnabled(false);
    m_kv_tokens->setVisible(false);
    m_actions->get(ActionId::Causal)->setEnabled(false);
    for (ActionId id : {ActionId::CloseModel, ActionId::NextLayer, ActionId::PreviousLayer, ActionId::InductionProbe})
        m_actions->get(id)->setEnabled(true);
    setWindowTitle(tr("%1 — attention-lab").arg(QFileInfo(dir).fileName()));
}

void MainWindow::runInductionProbe()
{
    const std::shared_ptr<const ModelSession> model = m_controller->model();
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
    ModelView* view = m_tabs->modelView();
    view->orderBox()->setCurrentIndex(view->orderBox()->findData(QStringLiteral("induction")));
    view->marksBox()->setCurrentIndex(view->marksBox()->findData(QStringLiteral("induction")));
    setCurrentView(View::Model);
    m_message->showInfo(tr("Induction probe: %1 random token ids, then the same %1 again. Induction heads attend "
                           "from each token of the second copy to the token after its first occurrence.")
                            .arg(length));
}

void MainWindow::modelClosed()
{
    m_panel->clearModel();
    m_panel->setConfig(m_controller->config());
    m_tabs->clearModel();
    m_tabs->shapesPanel()->setModelConfig(nullptr);
    m_layer_chooser->setVisible(false);
    setTokenIdsInput(false);  // the weights in the panel take text
    m_input_mode->setVisible(false);
    m_kv_sentence->setEnabled(true);
    m_actions->get(ActionId::Causal)->setEnabled(true);
    for (ActionId id : {ActionId::CloseModel, ActionId::NextLayer, ActionId::PreviousLayer, ActionId::InductionProbe})
        m_actions->get(id)->setEnabled(false);
    setWindowTitle(tr("attention-lab"));
}

void MainWindow::showModelError(const QString& message)
{
    if (message.isEmpty())
        return;
    if (!m_controller->hasModel() && !m_controller->isOpeningModel()) {
        setTokenIdsInput(false);  // no model to take ids: back to the sentence
        m_input_mode->setVisible(false);
    }
    if (std::exchange(m_restoring_model, false))
        m_message->showError(
            tr("The saved model could not be opened; using the weights in the settings panel. %1").arg(message));
    else if (m_controller->hasModel())
        m_message->showError(tr("Model not opened, the model in use stays: %1").arg(message));
    else
        m_message->showError(tr("Model not opened, the weights in use stay: %1").arg(message));
}

void MainWindow::stepLayer(int step)
{
    if (!m_controller->hasModel())
        return;
    const int layer = m_controller->selectedLayer() + step;
    if (layer >= 0 && layer < m_layer_chooser->layerCount())
        m_controller->setLayer(layer);
}

void MainWindow::showModelHead(int layer, int head)
{
    if (m_controller->hasModel() && layer != m_controller->selectedLayer() && !m_controller->setLayer(layer))
        return;
    m_tabs->openHead(head);
}

void MainWindow::updateModelPieces()
{
    const auto model = m_controller->model();
    const auto run = m_controller->modelRun();
    if (!model || !run)
        return;
    const bool byte_level = model->byteLevelTokens();
    const QStringList& spelled = m_controller->modelTokens();
    std::vector<TokenStrip::Piece> pieces;
    pieces.reserve(size_t(run->seqLen()));
    for (int i = 0; i < run->seqLen() && i < spelled.size(); ++i)
        pieces.push_back(TokenStrip::modelPiece(spelled[i], run->token_ids[size_t(i)], byte_level,
                                                pieces.empty() ? nullptr : &pieces.back()));
    // The head's top 5 where it predicts: the next token (GPT-2) or the masked one (BERT family).
    const QLocale locale;
    for (const TokenPrediction& prediction : m_controller->modelPredictions()) {
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
    m_tokens->setPieces(pieces);
}

}  // namespace attn
