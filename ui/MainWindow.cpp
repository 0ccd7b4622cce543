#include "MainWindow.h"

#include "ActionRegistry.h"
#include "AppSettings.h"
#include "AttentionController.h"
#include "AttentionResult.h"
#include "DataExporter.h"
#include "ExportImageDialog.h"
#include "HeadView.h"
#include "HeadsGrid.h"
#include "MessageBar.h"
#include "ResultStatus.h"
#include "SettingsPanel.h"
#include "TokenStrip.h"
#include "ViewExporter.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

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
    m_sentence->setToolTip(tr("The sentence: every keystroke recomputes every head (Ctrl+L)"));
    QFont big = m_sentence->font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    m_sentence->setFont(big);
    m_sentence->setMinimumHeight(36);
    m_tokens = new TokenStrip(central);
    m_message = new MessageBar(central);
    m_tabs = new QTabWidget(central);
    m_tabs->setDocumentMode(true);
    m_grid = new HeadsGrid(m_tabs);
    m_head_view = new HeadView(m_tabs);
    m_tabs->addTab(m_grid, tr("All heads"));
    m_tabs->addTab(m_head_view, tr("One head"));
    m_tabs->setTabToolTip(GridView, tr("Every head as a small heatmap; click one to open it (Ctrl+1)"));
    m_tabs->setTabToolTip(HeadViewTab, tr("One head large, with the value under the mouse (Ctrl+2)"));
    layout->addWidget(m_sentence);
    layout->addWidget(m_tokens);
    layout->addWidget(m_message);
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
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    dock->setMinimumWidth(260);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    buildMenus();
    m_status = new ResultStatus(statusBar());

    connect(m_sentence, &QLineEdit::textChanged, m_controller, &AttentionController::setSentence);
    connect(m_controller, &AttentionController::resultReady, this, &MainWindow::showResult);
    connect(m_controller, &AttentionController::errorChanged, this, &MainWindow::showError);
    connect(m_controller, &AttentionController::busyChanged, m_status, &ResultStatus::setBusy);
    connect(m_panel, &SettingsPanel::configEdited, this, [this](const ModelConfig& config) {
        m_controller->setConfig(config);
        m_actions->get(ActionId::Causal)->setChecked(m_controller->config().causal);
    });
    connect(m_panel, &SettingsPanel::colorMapChanged, this, [this](ColorMaps::Map map) {
        m_grid->setColorMap(map);
        m_head_view->setColorMap(map);
    });
    connect(m_panel, &SettingsPanel::openWeightsRequested, this, &MainWindow::openWeightsInteractively);
    connect(m_grid, &HeadsGrid::headActivated, this, [this](int head) {
        setCurrentView(HeadViewTab);  // brings the head view up to date first
        m_head_view->setHead(head);
    });
    connect(m_head_view, &HeadView::headChanged, m_grid, &HeadsGrid::setCurrentHead);
    connect(m_head_view, &HeadView::cellHovered, m_tokens, &TokenStrip::setHighlight);
    connect(m_grid, &HeadsGrid::cellHovered, this, [this](int head, int query, int key, double value) {
        m_tokens->setHighlight(query, key);
        if (head < 0 || !m_result) {
            statusBar()->clearMessage();
            return;
        }
        const QString& query_text = m_result->input.tokens[query].text;
        const QString& key_text = m_result->input.tokens[key].text;
        statusBar()->showMessage(tr("head %1: %2").arg(head).arg(HeadView::describeCell(query_text, key_text, value)));
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        if (index == GridView && m_grid_stale) {
            m_grid->setResult(m_result);
            m_grid_stale = false;
        }
        if (index == HeadViewTab && m_head_view_stale) {
            m_head_view->setResult(m_result);
            m_head_view_stale = false;
        }
    });

    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    auto* a = m_actions;
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(a->get(ActionId::OpenWeights));
    m_recent_menu = file->addMenu(tr("Open &recent"));
    m_recent_menu->setToolTipsVisible(true);
    file->addSeparator();
    file->addAction(a->get(ActionId::ExportImage));
    file->addAction(a->get(ActionId::CopyImage));
    file->addAction(a->get(ActionId::ExportData));
    file->addSeparator();
    file->addAction(a->get(ActionId::Quit));
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(a->get(ActionId::ViewGrid));
    view->addAction(a->get(ActionId::ViewHead));
    view->addAction(a->get(ActionId::PreviousHead));
    view->addAction(a->get(ActionId::NextHead));
    view->addSeparator();
    view->addAction(a->get(ActionId::FocusSentence));
    QMenu* model = menuBar()->addMenu(tr("&Model"));
    model->addAction(a->get(ActionId::Causal));
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(a->get(ActionId::About));
    for (QMenu* menu : {file, view, model, help})
        menu->setToolTipsVisible(true);

    connect(a->get(ActionId::OpenWeights), &QAction::triggered, this, &MainWindow::openWeightsInteractively);
    connect(a->get(ActionId::ExportImage), &QAction::triggered, this, &MainWindow::exportImageInteractively);
    connect(a->get(ActionId::CopyImage), &QAction::triggered, this, &MainWindow::copyImage);
    connect(a->get(ActionId::ExportData), &QAction::triggered, this, &MainWindow::exportDataInteractively);
    connect(a->get(ActionId::Quit), &QAction::triggered, this, &QWidget::close);
    connect(a->get(ActionId::ViewGrid), &QAction::triggered, this, [this] { setCurrentView(GridView); });
    connect(a->get(ActionId::ViewHead), &QAction::triggered, this, [this] { setCurrentView(HeadViewTab); });
    connect(a->get(ActionId::NextHead), &QAction::triggered, this, [this] { m_head_view->setHead(m_head_view->head() + 1); });
    connect(a->get(ActionId::PreviousHead), &QAction::triggered, this, [this] { m_head_view->setHead(m_head_view->head() - 1); });
    connect(a->get(ActionId::FocusSentence), &QAction::triggered, this, [this] {
        m_sentence->setFocus(Qt::ShortcutFocusReason);
        m_sentence->selectAll();
    });
    // The causal action and the settings panel's checkbox are one option, bound both ways.
    connect(a->get(ActionId::Causal), &QAction::toggled, this, [this](bool causal) {
        if (m_panel->config().causal != causal) {
            ModelConfig config = m_panel->config();
            config.causal = causal;
            m_panel->setConfig(config);
            m_controller->setConfig(config);
        }
    });
    connect(a->get(ActionId::About), &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About attention-lab"),
                           tr("<b>attention-lab</b> %1<br>What multi-head attention does to a sentence, head by head.")
                               .arg(QApplication::applicationVersion()));
    });
}

QString MainWindow::statusText() const { return m_status->text(); }

void MainWindow::restoreSettings()
{
    const QByteArray geometry = m_settings->windowGeometry();
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        resize(1400, 900);
    restoreState(m_settings->windowState());
    m_panel->setColorMap(m_settings->colorMap());
    m_grid->setColorMap(m_settings->colorMap());
    m_head_view->setColorMap(m_settings->colorMap());
    updateRecentMenu();

    ModelConfig config = m_settings->modelConfig();
    {
        const QSignalBlocker block(m_sentence);
        m_sentence->setText(m_settings->sentence());
    }
    m_controller->blockSignals(true);  // the sentence alone is not worth a result
    m_controller->setSentence(m_sentence->text());
    m_controller->blockSignals(false);
    if (!m_controller->setConfig(config)) {
        const QString reason = config.weight_source == ModelConfig::WeightSource::File
            ? tr("The saved weights could not be loaded; using random weights.") : tr("The saved settings were invalid; using the defaults.");
        config = ModelConfig{};
        m_controller->setConfig(config);
        m_message->showError(reason + QLatin1Char(' ') + m_message->text());
    }
    m_panel->setConfig(m_controller->config());
    if (m_result)
        m_panel->showResult(*m_result);
    m_actions->get(ActionId::Causal)->setChecked(m_controller->config().causal);
    m_head_view->setHead(m_settings->currentHead());
    setCurrentView(View(std::clamp(m_settings->currentView(), 0, 1)));
}

void MainWindow::saveSettings()
{
    m_settings->setSentence(m_sentence->text());
    m_settings->setModelConfig(m_controller->config());
    m_settings->setColorMap(m_panel->colorMap());
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

void MainWindow::showResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    QStringList labels;
    for (const Token& token : m_result->input.tokens)
        labels.append(token.text);
    m_tokens->setTokens(labels);
    // Only the visible view is redrawn now; the other catches up when it is shown.
    const bool grid_visible = currentView() == GridView;
    m_grid_stale = !grid_visible;
    m_head_view_stale = grid_visible;
    if (grid_visible)
        m_grid->setResult(m_result);
    else
        m_head_view->setResult(m_result);
    m_panel->showResult(*m_result);
    m_status->showResult(*m_result);
}

void MainWindow::showError(const QString& field, const QString& message)
{
    m_panel->setFieldError(field, message);
    if (field == QLatin1String("weights") || field == QLatin1String("layer")) {
        if (!message.isEmpty())
            m_message->showError(tr("Weights not loaded, the previous weights stay in use: %1").arg(message));
    }
    if (field == QLatin1String("sentence"))
        m_sentence->setToolTip(message.isEmpty() ? tr("The sentence: every keystroke recomputes every head (Ctrl+L)") : message);
}

void MainWindow::applyOptions(const ModelConfig& config, const QString& sentence, View view, int head)
{
    if (m_controller->setConfig(config))
        m_panel->setConfig(m_controller->config());
    m_actions->get(ActionId::Causal)->setChecked(m_controller->config().causal);
    m_sentence->setText(sentence);
    m_head_view->setHead(head);
    setCurrentView(view);
}

void MainWindow::setCurrentView(View view) { m_tabs->setCurrentIndex(int(view)); }
MainWindow::View MainWindow::currentView() const { return View(m_tabs->currentIndex()); }

bool MainWindow::openWeightsFile(const QString& path)
{
    ModelConfig config = m_controller->config();
    config.weight_source = ModelConfig::WeightSource::File;
    config.weights_file = QFileInfo(path).absoluteFilePath();
    config.layer = 0;
    config.file_num_heads = 0;
    const bool ok = m_controller->setConfig(config);
    m_panel->setConfig(m_controller->config());  // on failure: back to the weights in use
    if (m_result)
        m_panel->showResult(*m_result);  // a file's dimensions
    if (ok) {
        m_settings->addRecentFile(config.weights_file);
        m_message->hide();
        m_panel->setFieldError(QStringLiteral("weights"), QString());
    }
    updateRecentMenu();
    return ok;
}

void MainWindow::openWeightsInteractively()
{
    const QStringList recent = m_settings->recentFiles();
    const QString start = recent.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::HomeLocation)
                                           : QFileInfo(recent.first()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open weights"), start,
                                                      tr("Attention weights (*.safetensors *.npz *.json);;All files (*)"));
    if (!path.isEmpty())
        openWeightsFile(path);
    else
        m_panel->setConfig(m_controller->config());
}

void MainWindow::updateRecentMenu()
{
    m_recent_menu->clear();
    const QStringList files = m_settings->recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        QAction* action = m_recent_menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
        action->setToolTip(files[i]);
        connect(action, &QAction::triggered, this, [this, path = files[i]] { openWeightsFile(path); });
    }
    m_recent_menu->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openWeightsFile(urls.first().toLocalFile());
}

void MainWindow::renderCurrentView(QPainter* painter, const QRectF& target)
{
    if (currentView() == GridView)
        m_grid->render(painter, target);
    else
        m_head_view->render(painter, target);
}

QSize MainWindow::currentViewSize() const
{
    return currentView() == GridView ? m_grid->size() : m_head_view->plot()->size();
}

Status MainWindow::exportImage(const QString& path, const QSize& size, double scale)
{
    if (!m_result)
        return Error{tr("nothing to export yet")};
    Status status = ViewExporter::exportPicture(path, size, scale, [this](QPainter* painter, const QRectF& target) {
        renderCurrentView(painter, target);
    });
    if (status)
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        m_message->showError(tr("Export failed: %1").arg(status.error()));
    return status;
}

void MainWindow::exportImageInteractively()
{
    const QString directory = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    const QString name = currentView() == GridView ? QStringLiteral("attention-heads.png")
                                                   : QStringLiteral("attention-head-%1.png").arg(m_head_view->head());
    ExportImageDialog dialog(QDir(directory).filePath(name), currentViewSize(), this);
    if (dialog.exec() == QDialog::Accepted)
        exportImage(dialog.path(), dialog.imageSize(), dialog.scale());
}

Status MainWindow::exportData(const QString& path)
{
    if (!m_result)
        return Error{tr("nothing to export yet")};
    Status status = DataExporter::exportWeights(*m_result, path);
    if (status)
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        m_message->showError(tr("Export failed: %1").arg(status.error()));
    return status;
}

void MainWindow::exportDataInteractively()
{
    const QString directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export attention weights"),
                                                      QDir(directory).filePath(QStringLiteral("attention.csv")),
                                                      tr("CSV (*.csv);;NumPy array (*.npy);;JSON (*.json)"));
    if (!path.isEmpty())
        exportData(path);
}

void MainWindow::copyImage()
{
    if (!m_result)
        return;
    const QImage image = ViewExporter::toImage(currentViewSize(), devicePixelRatioF(),
                                               [this](QPainter* painter, const QRectF& target) { renderCurrentView(painter, target); });
    QApplication::clipboard()->setImage(image);
    statusBar()->showMessage(tr("Copied the view to the clipboard"), 3000);
}

}  // namespace attn
