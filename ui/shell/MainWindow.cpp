#include "ui/shell/MainWindow.h"

#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/AttentionKindSwitch.h"
#include "ui/shell/FileActions.h"
#include "ui/shell/FileDrop.h"
#include "ui/shell/HeadAblationMenu.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/InputErrors.h"
#include "ui/shell/KeyHiding.h"
#include "ui/shell/LayerChooser.h"
#include "ui/shell/GenerateLink.h"
#include "ui/shell/LensLink.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/ModelActions.h"
#include "ui/shell/PlaceholderContrast.h"
#include "ui/shell/ResultStatus.h"
#include "ui/shell/SessionActions.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/shell/WindowMenus.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollArea>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {

MainWindow::MainWindow(AppSettings* settings, QWidget* parent) : QMainWindow(parent), m_settings(settings)
{
    setWindowTitle(tr("attention-lab"));
    setAcceptDrops(true);
    m_controller = new AttentionController(this);
    m_actions = new ActionRegistry(this);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(10, 8, 10, 4);
    layout->setSpacing(6);
    m_sentence = new QLineEdit(central);
    m_sentence->setPlaceholderText(tr("Type a sentence…"));
    m_sentence->setClearButtonEnabled(true);
    m_sentence->setToolTip(InputErrors::sentenceToolTip());
    QFont big = m_sentence->font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    m_sentence->setFont(big);
    m_sentence->setMinimumHeight(36);
    m_sentence->setMaxLength(kMaxSentenceLength);
    // What the field holds with a whole model: text through its tokenizer, or token ids as they are.
    m_input_mode = new QComboBox(central);
    m_input_mode->setObjectName(QStringLiteral("InputMode"));
    m_input_mode->addItem(tr("Text"));
    m_input_mode->addItem(tr("Token ids"));
    m_input_mode->setToolTip(
        tr("Text: the sentence through the model's tokenizer. Token ids: ids as they are, "
           "e.g. 464, 3797, 318 (a folder without a tokenizer takes ids only)"));
    m_input_mode->setVisible(false);  // a whole model only
    // Why the sentence in the field is not what the views show: beside the field, not a tooltip.
    m_sentence_error = new QLabel(central);
    m_sentence_error->setObjectName(QStringLiteral("SentenceError"));
    m_sentence_error->setWordWrap(true);
    m_sentence_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sentence_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_sentence_error->setVisible(false);
    m_tokens = new TokenStrip(central);
    m_tokens->setClickable(true);  // self-attention: the sentence's tokens are also the keys
    // Cross-attention, as forward(q, k, v): a second sentence for the keys and values.
    m_kv_sentence = new QLineEdit(central);
    m_kv_sentence->setObjectName(QStringLiteral("KvSentence"));
    m_kv_sentence->setPlaceholderText(
        tr("Keys and values from the same sentence (self-attention); type a second "
           "sentence here for cross-attention"));
    m_kv_sentence->setClearButtonEnabled(true);
    m_kv_sentence->setToolTip(InputErrors::kvToolTip());
    m_kv_tokens = new TokenStrip(central);
    m_kv_tokens->setClickable(true);
    m_kv_tokens->setVisible(false);
    m_message = new MessageBar(central);
    m_layer_chooser = new LayerChooser(central);
    m_layer_chooser->setVisible(false);  // a whole model only
    m_tabs = new ViewTabs(central);
    m_grid = m_tabs->grid();
    m_head_view = m_tabs->headView();
    auto* sentence_row = new QHBoxLayout;
    sentence_row->setSpacing(6);
    sentence_row->addWidget(m_input_mode);
    sentence_row->addWidget(m_sentence, 1);
    layout->addLayout(sentence_row);
    layout->addWidget(m_sentence_error);
    layout->addWidget(m_tokens);
    layout->addWidget(m_kv_sentence);
    layout->addWidget(m_kv_tokens);
    layout->addWidget(m_message);
    layout->addWidget(m_layer_chooser);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_panel = new SettingsPanel;
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* dock = new QDockWidget(tr("Settings"), this);
    dock->setObjectName(QStringLiteral("SettingsDock"));
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    dock->setMinimumWidth(260);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    m_settings_dock = dock;

    m_heatmap_menu = new HeatmapMenu(this);
    m_kind = new AttentionKindSwitch(m_controller, m_tabs, m_actions->get(ActionId::ValueNorms), this);
    m_key_hiding = new KeyHiding(*this);
    m_input_errors = new InputErrors({m_sentence, m_sentence_error, m_tokens, m_kv_sentence, m_message}, this);
    buildMenus();
    for (QLineEdit* field : findChildren<QLineEdit*>())
        PlaceholderContrast::keepReadable(field);
    m_status = new ResultStatus(statusBar());
    // One heatmap choice for every view: the menu, the grid's and the head view's choosers.
    connect(m_heatmap_menu, &HeatmapMenu::colorScaleChanged, m_tabs, &ViewTabs::setColorScale);
    connect(m_grid, &HeadsGrid::colorScaleChanged, m_heatmap_menu, &HeatmapMenu::setColorScale);
    connect(m_head_view, &HeadView::colorScaleChanged, m_heatmap_menu, &HeatmapMenu::setColorScale);
    connect(m_heatmap_menu, &HeatmapMenu::topMassChanged, m_tabs, &ViewTabs::setTopMass);
    connect(m_heatmap_menu, &HeatmapMenu::aggregateChanged, m_tabs, &ViewTabs::setAggregate);
    connect(m_heatmap_menu, &HeatmapMenu::reductionChanged, m_tabs, &ViewTabs::setReduction);
    connect(m_heatmap_menu, &HeatmapMenu::hiddenKeysChanged, this, [this](const QList<int>& keys) {
        m_tabs->setHiddenKeys(keys);
        m_key_hiding->showOnStrips();
    });
    connect(m_tokens, &TokenStrip::tokenContextMenu, this, [this](int index, const QPoint& where) {
        if (m_kv_sentence->text().trimmed().isEmpty())  // self-attention: the sentence's tokens are the keys
            m_key_hiding->showMenu(index, where);
    });
    connect(m_kv_tokens, &TokenStrip::tokenContextMenu, m_key_hiding, &KeyHiding::showMenu);

    connect(m_sentence, &QLineEdit::textChanged, this, &MainWindow::editSentence);
    connect(m_kv_sentence, &QLineEdit::textChanged, this, &MainWindow::editKvSentence);
    connect(m_tokens, &TokenStrip::tokenClicked, this, [this](int index) {
        if (m_kv_sentence->text().trimmed().isEmpty())
            togglePaddedKey(index);
    });
    connect(m_kv_tokens, &TokenStrip::tokenClicked, this, &MainWindow::togglePaddedKey);
    connect(m_controller, &AttentionController::resultReady, this, &MainWindow::showResult);
    connect(m_controller, &AttentionController::errorChanged, this, &MainWindow::showError);
    connect(m_controller, &AttentionController::busyChanged, m_status, &ResultStatus::setBusy);
    connect(m_controller, &AttentionController::configChanged, this, &MainWindow::showConfig);
    connect(m_controller, &AttentionController::layerChanged, m_layer_chooser, &LayerChooser::setLayer);
    // The Model tab's table lists the heads of the layer the chooser shows.
    connect(m_controller, &AttentionController::layerChanged, m_tabs->modelView(), &ModelView::selectLayer);
    // Each model run also reaches the Lens and the Attribution tabs as computed (never as norms).
    new LensLink(m_controller, m_tabs, this);
    new HeadAblationMenu(m_controller, m_tabs, this);  // a head right-clicked: ablate or restore it
    new GenerateLink(m_controller, m_tabs, this);
    connect(m_controller, &AttentionController::modelRunReady, this, [this](std::shared_ptr<const ModelRun> run) {
        m_tabs->showAttributionRun(m_controller->model(), std::move(run), m_controller->modelLabels());
    });
    // Side B of the compare view under other settings is computed by the controller's worker.
    CompareView* compare = m_tabs->compareView();
    connect(compare, &CompareView::variantRequested, m_controller, &AttentionController::requestVariant);
    connect(m_controller, &AttentionController::variantReady, compare, &CompareView::showVariant);
    connect(m_controller, &AttentionController::variantFailed, compare, &CompareView::showVariantError);
    connect(m_panel, &SettingsPanel::configEdited, this, [this](RunSettings edited) {
        const RunSettings& current = m_controller->config();
        edited.padded_keys = current.padded_keys;  // chosen on the token strip, not in the panel
        const bool leaves_example =
            m_controller->showsExample() &&
            (edited.weight_source != RunSettings::WeightSource::File || edited.weights_file != current.weights_file);
        if (!leaves_example) {
            m_controller->setConfig(edited);
            return;
        }
        // Other weights than the example's: the settings from before it, with those weights.
        RunSettings config = m_model_actions->configBeforeExample();
        config.weight_source = edited.weight_source;
        if (edited.weight_source == RunSettings::WeightSource::File) {
            config.weights_file = edited.weights_file;
            config.layer = edited.layer;
            config.file_num_heads = edited.file_num_heads;
        }
        m_controller->setConfig(config);
    });
    connect(m_panel, &SettingsPanel::colorMapChanged, m_tabs, &ViewTabs::setColorMap);
    connect(m_panel, &SettingsPanel::memoryBudgetEdited, this, &MainWindow::setMemoryBudget);
    m_controller->setPictureCellLimit(std::int64_t(HeatmapPlot::kReducedSide) * HeatmapPlot::kReducedSide);
    // A long input keeps the weights of the head shown large (from its next computation).
    connect(m_head_view, &HeadView::headChanged, m_controller, &AttentionController::setKeptHead);
    connect(m_head_view, &HeadView::cellHovered, this, &MainWindow::highlightTokens);
    connect(m_grid, &HeadsGrid::cellHovered, this, [this](int head, int query, int key, double value) {
        highlightTokens(query, key);
        if (head < 0 || !m_result) {
            statusBar()->clearMessage();
            return;
        }
        const QString& query_text = m_result->input.tokens[query].text;
        const QString& key_text = m_result->keyTokens()[key].text;
        statusBar()->showMessage(tr("head %1: %2").arg(head).arg(HeadView::describeCell(query_text, key_text, value)));
    });

    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    auto* menus = new WindowMenus(*this, m_settings_dock);
    m_examples_menu = menus->examples();
    // The file and model actions connect their own menu items.
    m_file_actions = new FileActions(*this, m_settings, menus->recentFiles());
    connect(m_file_actions, &FileActions::dataExported, this, &MainWindow::dataExported);
    m_model_actions = new ModelActions(*this, m_settings, menus->recentModels(), m_examples_menu);
    m_session_actions = new SessionActions(*this, m_settings, menus->recentSessions());
    // The causal action is the config's causal option: it shows the controller's config
    // (showConfig, like the settings panel) and changes it when the user toggles it.
    connect(m_actions->get(ActionId::Causal), &QAction::triggered, this, [this](bool causal) {
        RunSettings config = m_controller->config();
        config.causal = causal;
        if (!m_controller->setConfig(config))
            showConfig(m_controller->config());  // refused: back to the option in use
    });
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::restoreSettings()
{
    const QByteArray geometry = m_settings->windowGeometry();
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        resize(1400, 900);
    restoreState(m_settings->windowState());
    m_panel->setColorMap(m_settings->colorMap());
    m_tabs->setColorMap(m_settings->colorMap());
    m_heatmap_menu->setColorScale(m_settings->colorScale());
    m_tabs->setColorScale(m_settings->colorScale());
    m_heatmap_menu->setReduction(m_settings->reduction());
    m_tabs->setReduction(m_settings->reduction());
    m_kind->setNorms(m_settings->valueNorms());
    m_controller->setMemoryBudget(m_settings->memoryBudget());
    m_panel->setMemoryBudget(m_settings->memoryBudget());

    const RunSettings config = m_settings->runSettings();
    {
        const QSignalBlocker block(m_sentence);
        m_sentence->setText(m_settings->sentence());
    }
    {
        const QSignalBlocker block(m_kv_sentence);
        m_kv_sentence->setText(m_settings->kvSentence());
    }
    m_controller->presetKvSentence(m_kv_sentence->text());
    m_controller->presetSentence(m_sentence->text());  // the sentence alone is not worth a result
    m_tabs->setSentence(m_sentence->text());
    // A remembered weight file is read on the worker; if it cannot be, showError says so.
    m_file_actions->setRestoring(config.weight_source == RunSettings::WeightSource::File);
    if (!m_controller->setConfig(config)) {
        m_file_actions->setRestoring(false);
        m_controller->setConfig(RunSettings{});
        m_message->showError(tr("The saved settings were invalid; using the defaults.") + QLatin1Char(' ') +
                             m_message->text());
    }
    m_head_view->setHead(m_settings->currentHead());
    setCurrentView(m_settings->currentView());
    // The model open when the window closed, read again on the worker: until it is read (or if it
    // is gone or broken, said beside the panel's model button) the weights above are in use.
    if (const QString model_dir = m_settings->modelFolder(); !model_dir.isEmpty())
        m_model_actions->restore(model_dir, m_settings->modelLayer(), m_settings->tokenIdsInput(),
                                 m_settings->tokenIds());
}

void MainWindow::saveSettings()
{
    m_model_actions->save();  // the sentence, the model, and the settings an example replaced
    m_settings->setKvSentence(m_kv_sentence->text());
    m_settings->setColorMap(m_panel->colorMap());
    m_settings->setColorScale(m_heatmap_menu->colorScale());
    m_settings->setReduction(m_heatmap_menu->reduction());
    m_settings->setValueNorms(m_kind->norms());
    m_settings->setMemoryBudget(m_panel->memoryBudget());
    m_settings->setCurrentView(currentView());
    m_settings->setCurrentHead(m_head_view->head());
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    m_settings->sync();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    event->accept();
}

void MainWindow::setMemoryBudget(std::int64_t bytes)
{
    m_panel->setMemoryBudget(bytes);
    m_controller->setMemoryBudget(bytes);
    if (!m_controller->showsExample() && !m_sentence->text().trimmed().isEmpty())
        m_controller->setSentence(m_sentence->text());  // what was refused may fit now, or the reverse
}

void MainWindow::showConfig(const RunSettings& config)
{
    m_panel->setConfig(config);
    if (m_result && m_result->config.sameWeightsAs(config))
        m_panel->showResult(*m_result);  // a file's dimensions
    m_actions->get(ActionId::Causal)->setChecked(config.causal);
}

void MainWindow::highlightTokens(int query, int key)
{
    const bool cross = m_result && m_result->isCross();
    m_tokens->setHighlight(query, cross ? -1 : key);
    m_kv_tokens->setHighlight(-1, cross ? key : -1);
}

void MainWindow::editKvSentence(const QString& text)
{
    // Padded positions name keys of the sentence the keys come from: going from one sentence to
    // two (or back) makes them other tokens, so they are let go.
    const bool was_cross = !m_controller->kvSentence().trimmed().isEmpty();
    const bool cross = !text.trimmed().isEmpty();
    if (was_cross != cross && !m_controller->config().padded_keys.isEmpty()) {
        RunSettings config = m_controller->config();
        config.padded_keys.clear();
        m_controller->setConfig(config);
    }
    m_controller->setKvSentence(text);
}

void MainWindow::togglePaddedKey(int key)
{
    if (key < 0)
        return;
    RunSettings config = m_controller->config();
    if (config.padded_keys.contains(key))
        config.padded_keys.removeAll(key);
    else
        config.padded_keys.append(key);
    std::sort(config.padded_keys.begin(), config.padded_keys.end());
    m_controller->setConfig(config);
}

void MainWindow::applyOptions(const RunSettings& config, const QString& sentence, View view, int head)
{
    m_controller->setConfig(config);
    m_sentence->setText(sentence);
    m_head_view->setHead(head);
    setCurrentView(view);
}

void MainWindow::setCurrentView(View view)
{
    m_tabs->setCurrentView(view);
}
View MainWindow::currentView() const
{
    return m_tabs->currentView();
}
WalkthroughView* MainWindow::walkthrough() const
{
    return m_tabs->walkthrough();
}

void MainWindow::editSentence(const QString& text)
{
    // A paste longer than the field holds is cut by QLineEdit: say so rather than compute a part.
    if (text.size() >= m_sentence->maxLength())
        m_message->showError(tr("The sentence field holds at most %1 characters: the rest of the text was cut.")
                                 .arg(QLocale().toString(m_sentence->maxLength())));
    m_tabs->setSentence(text);
    if (!m_controller->showsExample()) {
        m_controller->setSentence(text);
        return;
    }
    m_model_actions->leaveExampleForSentence(text);  // typing leaves the example
}

void MainWindow::showResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    m_tokens->setStale(false);
    QStringList labels;
    for (const Token& token : m_result->input.tokens)
        labels.append(token.text);
    if (m_controller->hasModel())
        m_model_actions->updateModelPieces();
    else
        m_tokens->setTokens(labels);
    QStringList key_labels;
    for (const Token& token : m_result->kv_input.tokens)
        key_labels.append(token.text);
    m_kv_tokens->setTokens(key_labels);
    m_kv_tokens->setVisible(m_result->isCross());
    // The keys' strip shows the padding; the other one shows none.
    m_tokens->setPadding(m_result->isCross() ? std::vector<bool>{} : m_result->trace.key_padding);
    m_kv_tokens->setPadding(m_result->isCross() ? m_result->trace.key_padding : std::vector<bool>{});
    m_key_hiding->followResult(*m_result);  // the hidden tokens where this input has them
    m_tabs->setResult(m_result);            // the visible view now, the others when they are shown
    m_key_hiding->showOnStrips();
    m_panel->showResult(*m_result);
    m_status->showResult(*m_result);
}

void MainWindow::showError(SettingField field, const QString& raw_message)
{
    const QString message = m_file_actions->explainError(field, raw_message);
    m_panel->setFieldError(field, message);
    if (field == SettingField::Model) {
        m_model_actions->showModelError(message);
        return;
    }
    if (field == SettingField::Layer && m_controller->hasModel()) {
        m_layer_chooser->setToolTip(message);
        if (!message.isEmpty())
            m_message->showError(tr("Layer: %1").arg(message));
        return;
    }
    m_file_actions->showWeightsError(field, message);
    if (field == SettingField::Sentence)
        m_input_errors->showSentenceError(message, m_result.get());
    if (field == SettingField::KvSentence)
        m_input_errors->showKvSentenceError(message);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!FileDrop::acceptedPath(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = FileDrop::acceptedPath(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    FileDrop::open(*this, path);
}

}  // namespace attn
