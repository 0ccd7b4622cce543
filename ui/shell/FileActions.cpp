#include "ui/shell/FileActions.h"

#include "core/pipeline/AttentionResult.h"
#include "core/weights/WeightFile.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/DataExporter.h"
#include "ui/export/ExportDataDialog.h"
#include "ui/export/ExportImageDialog.h"
#include "ui/export/ViewExporter.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/ModelActions.h"
#include "ui/shell/RecentItems.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStatusBar>

#include <initializer_list>
#include <utility>

namespace attn {

namespace {

// A hand-written JSON weight file is small; a larger one is left to the load, off this thread.
constexpr qint64 kMaxJsonCheckedHere = qint64(4) << 20;

// True when the file opens as a safetensors, npz or (small) JSON file and states no number of
// heads (no num_heads in the metadata, the archive or the object). Only the header or the
// archive's directory and its num_heads member are read; any other question about the file is
// left to the load.
bool statesNoHeads(const QString& path)
{
    const QFileInfo info(path);
    if (info.suffix().toLower() == u"json" && info.size() > kMaxJsonCheckedHere)
        return false;
    const auto declared = WeightFile::declaredNumHeads(path);
    return declared && !declared->has_value();
}

// The first of the locations that exists, else the home folder: a file proposed there can be saved.
QString existingFolder(std::initializer_list<QStandardPaths::StandardLocation> locations)
{
    for (QStandardPaths::StandardLocation location : locations) {
        const QString folder = QStandardPaths::writableLocation(location);
        if (!folder.isEmpty() && QFileInfo(folder).isDir())
            return folder;
    }
    return QDir::homePath();
}

}  // namespace

FileActions::FileActions(MainWindow& window, AppSettings* settings, QMenu* recent_menu)
    : QObject(&window),
      m_window(window),
      m_settings(settings),
      m_recent(new RecentItems(settings, AppSettings::RecentList::WeightFiles, recent_menu))
{
    connect(m_recent, &RecentItems::chosen, this, &FileActions::openWeightsFile);
    connect(window.controller(), &AttentionController::weightsFileLoaded, this, &FileActions::weightsFileLoaded);
    ActionRegistry* actions = window.actions();
    connect(actions->get(ActionId::OpenWeights), &QAction::triggered, this, &FileActions::openWeightsInteractively);
    connect(actions->get(ActionId::ExportImage), &QAction::triggered, this, &FileActions::exportImageInteractively);
    connect(actions->get(ActionId::CopyImage), &QAction::triggered, this, &FileActions::copyImage);
    connect(actions->get(ActionId::ExportData), &QAction::triggered, this, &FileActions::exportDataInteractively);
    connect(window.settingsPanel(), &SettingsPanel::openWeightsRequested, this, &FileActions::openWeightsInteractively);
}

void FileActions::openWeightsFile(const QString& path)
{
    AttentionController* controller = m_window.controller();
    // An open model gives way once the file is read (the controller reads it first; refused, the
    // model stays); a folder still being read is dropped now.
    if (controller->isOpeningModel())
        controller->closeModel();
    // A file opened while an example is shown replaces it: the settings from before the example.
    RunSettings config =
        controller->showsExample() ? m_window.modelActions()->configBeforeExample() : controller->config();
    // A file that does not say how many heads it has is split into the number the Heads field shows.
    m_heads_from_field = statesNoHeads(path) ? headsField() : 0;
    config.weight_source = RunSettings::WeightSource::File;
    config.weights_file = QFileInfo(path).absoluteFilePath();
    config.layer = 0;
    config.file_num_heads = m_heads_from_field;
    m_opening_file = config.weights_file;
    // The panel follows the controller's config (MainWindow::showConfig): the file now, the
    // weights in use again if it is refused.
    if (controller->setConfig(config) && !controller->isLoadingWeightFile())
        weightsFileLoaded(config.weights_file);  // the file in use already
}

int FileActions::headsField() const
{
    // What the Heads field shows: the heads of the weights in use ("from file" shows the file's).
    const RunSettings& config = m_window.controller()->config();
    if (config.weight_source == RunSettings::WeightSource::File && config.file_num_heads > 0)
        return config.file_num_heads;
    const auto result = m_window.result();
    return result ? result->numHeads() : config.num_heads;
}

void FileActions::weightsFileLoaded(const QString& path)
{
    m_restoring = false;
    if (path != m_opening_file) {
        m_window.messageBar()->dismiss(MessageBar::Subject::FileHeads);  // the heads (or layer) were chosen since
        return;  // another layer of the file in use, or a file given on the command line
    }
    m_opening_file.clear();
    m_recent->add(path);
    if (const int heads = std::exchange(m_heads_from_field, 0); heads > 0)
        m_window.messageBar()->showInfo(tr("%1 does not say how many heads it has: it is split into %2 heads, the "
                                           "number in the Heads field. Change Heads to split it otherwise.")
                                            .arg(QFileInfo(path).fileName())
                                            .arg(heads),
                                        MessageBar::Subject::FileHeads);
    else
        m_window.messageBar()->hide();
}

void FileActions::openWeightsInteractively()
{
    const QString path =
        QFileDialog::getOpenFileName(&m_window, tr("Open weights"), m_recent->dialogFolder(),
                                     tr("Attention weights (*.safetensors *.npz *.json);;All files (*)"));
    if (!path.isEmpty())
        openWeightsFile(path);
    else
        m_window.settingsPanel()->setConfig(m_window.controller()->config());
}

QString FileActions::explainError(SettingField field, const QString& message)
{
    if (field != SettingField::Weights || message.isEmpty() || m_opening_file.isEmpty())
        return message;
    const int heads = std::exchange(m_heads_from_field, 0);
    if (heads <= 0)
        return message;
    return tr("%1 does not say how many heads it has, and the %2 heads of the Heads field do not fit it "
              "(%3). Set Heads to the file's number of heads and open it again.")
        .arg(QFileInfo(m_opening_file).fileName())
        .arg(heads)
        .arg(message);
}

bool FileActions::showWeightsError(SettingField field, const QString& message)
{
    if ((field != SettingField::Weights && field != SettingField::Layer) || message.isEmpty())
        return false;
    MessageBar* bar = m_window.messageBar();
    if (std::exchange(m_restoring, false))
        bar->showError(tr("The saved weights could not be loaded; using random weights. %1").arg(message));
    else if (m_window.controller()->hasModel())
        bar->showError(tr("Weights not loaded, the model in use stays: %1").arg(message));
    else
        bar->showError(tr("Weights not loaded, the previous weights stay in use: %1").arg(message));
    m_opening_file.clear();
    return true;
}

Status FileActions::exportImage(const QString& path, const QSize& size, double scale)
{
    if (!m_window.result())
        return Error{tr("nothing to export yet")};
    ViewTabs* tabs = m_window.viewTabs();
    Status status = ViewExporter::exportPicture(
        path, size, scale, [tabs](QPainter* painter, const QRectF& target) { tabs->renderCurrent(painter, target); });
    if (status) {
        m_window.statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
        m_window.messageBar()->dismiss(MessageBar::Subject::Export);  // an earlier failure is no longer true
        m_last_export_folder = QFileInfo(path).absolutePath();
    } else {
        m_window.messageBar()->showError(tr("Export failed: %1").arg(status.error()), MessageBar::Subject::Export);
    }
    return status;
}

QString FileActions::proposedImagePath() const
{
    const QString folder = !m_last_export_folder.isEmpty() && QFileInfo(m_last_export_folder).isDir()
                               ? m_last_export_folder
                               : existingFolder({QStandardPaths::PicturesLocation, QStandardPaths::DocumentsLocation});
    return QDir(folder).filePath(m_window.viewTabs()->currentExportName());
}

void FileActions::exportImageInteractively()
{
    ExportImageDialog dialog(proposedImagePath(), m_window.viewTabs()->currentViewSize(), &m_window);
    if (dialog.exec() == QDialog::Accepted)
        exportImage(dialog.path(), dialog.imageSize(), dialog.scale());
}

Status FileActions::exportData(const QString& path, int trace_head)
{
    const auto result = m_window.result();
    if (!result)
        return Error{tr("nothing to export yet")};
    Status status = DataExporter::exportWeights(*result, path, trace_head);
    reportDataExport(path, status);
    return status;
}

void FileActions::startDataExport(const QString& path, int trace_head)
{
    const auto result = m_window.result();
    if (!result) {
        reportDataExport(path, Error{tr("nothing to export yet")});
        return;
    }
    // Gigabytes for a long input (8,192 tokens x 12 heads: 3.2 GB of .npy): written on a worker
    // while the window stays usable, one export at a time.
    QAction* action = m_window.actions()->get(ActionId::ExportData);
    action->setEnabled(false);
    m_window.statusBar()->showMessage(tr("Exporting %1\u2026").arg(QDir::toNativeSeparators(path)));
    m_data_export.start(
        [result, path, trace_head](const auto&) { return DataExporter::exportWeights(*result, path, trace_head); },
        [this, action, path](Status status) {
            action->setEnabled(true);
            reportDataExport(path, status);
            emit dataExported(path, status.ok() ? QString() : status.error());
        });
}

void FileActions::reportDataExport(const QString& path, const Status& status)
{
    if (status) {
        m_window.statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
        m_window.messageBar()->dismiss(MessageBar::Subject::Export);  // an earlier failure is no longer true
    } else {
        m_window.messageBar()->showError(tr("Export failed: %1").arg(status.error()), MessageBar::Subject::Export);
    }
}

void FileActions::exportDataInteractively()
{
    const QString directory = existingFolder({QStandardPaths::DocumentsLocation});
    const int head = m_window.headView()->head();
    ExportDataDialog dialog(QDir(directory).filePath(QStringLiteral("attention.csv")), head, &m_window);
    if (dialog.exec() == QDialog::Accepted && !dialog.path().isEmpty())
        startDataExport(dialog.path(), dialog.withTrace() ? head : -1);
}

void FileActions::copyImage()
{
    if (!m_window.result())
        return;
    ViewTabs* tabs = m_window.viewTabs();
    const QImage image = ViewExporter::toImage(
        tabs->currentViewSize(), m_window.devicePixelRatioF(),
        [tabs](QPainter* painter, const QRectF& target) { tabs->renderCurrent(painter, target); });
    QApplication::clipboard()->setImage(image);
    m_window.statusBar()->showMessage(tr("Copied the view to the clipboard"), 3000);
}

}  // namespace attn
