// MainWindow, continued: weight files (open, recent, drag and drop) and exports of the current
// view. Split from MainWindow.cpp to keep each file small.
#include "ui/shell/MainWindow.h"

#include "core/pipeline/AttentionResult.h"
#include "core/weights/WeightFile.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/DataExporter.h"
#include "ui/export/ExportDataDialog.h"
#include "ui/export/ExportImageDialog.h"
#include "ui/export/ViewExporter.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"
#include "ui/workers/ViewWorkers.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMimeData>
#include <QPointer>
#include <QStandardPaths>
#include <QStatusBar>
#include <QThreadPool>

#include <initializer_list>
#include <memory>
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

}  // namespace

void MainWindow::openWeightsFile(const QString& path)
{
    // An open model gives way once the file is read (the controller reads it first; refused, the
    // model stays); a folder still being read is dropped now.
    if (m_controller->isOpeningModel())
        closeModel();
    // A file opened while an example is shown replaces it: the settings from before the example.
    RunSettings config = m_controller->showsExample() ? m_config_before_example : m_controller->config();
    // A file that does not say how many heads it has is split into the number the Heads field shows.
    m_heads_from_field = statesNoHeads(path) ? headsField() : 0;
    config.weight_source = RunSettings::WeightSource::File;
    config.weights_file = QFileInfo(path).absoluteFilePath();
    config.layer = 0;
    config.file_num_heads = m_heads_from_field;
    m_opening_file = config.weights_file;
    // The panel follows the controller's config (showConfig): the file now, the weights in use
    // again if it is refused.
    if (m_controller->setConfig(config) && !m_controller->isLoadingWeightFile())
        weightsFileLoaded(config.weights_file);  // the file in use already
}

int MainWindow::headsField() const
{
    // What the Heads field shows: the heads of the weights in use ("from file" shows the file's).
    const RunSettings& config = m_controller->config();
    if (config.weight_source == RunSettings::WeightSource::File && config.file_num_heads > 0)
        return config.file_num_heads;
    return m_result ? m_result->numHeads() : config.num_heads;
}

void MainWindow::weightsFileLoaded(const QString& path)
{
    m_restoring_file = false;
    if (path != m_opening_file) {
        m_message->dismiss(MessageBar::Subject::FileHeads);  // the heads (or layer) were chosen since
        return;  // another layer of the file in use, or a file given on the command line
    }
    m_opening_file.clear();
    m_settings->addRecentFile(path);
    if (const int heads = std::exchange(m_heads_from_field, 0); heads > 0)
        m_message->showInfo(tr("%1 does not say how many heads it has: it is split into %2 heads, the number in the "
                               "Heads field. Change Heads to split it otherwise.")
                                .arg(QFileInfo(path).fileName())
                                .arg(heads),
                            MessageBar::Subject::FileHeads);
    else
        m_message->hide();
    updateRecentMenu();
}

void MainWindow::openWeightsInteractively()
{
    const QStringList recent = m_settings->recentFiles();
    const QString start = recent.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::HomeLocation)
                                           : QFileInfo(recent.first()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open weights"), start, tr("Attention weights (*.safetensors *.npz *.json);;All files (*)"));
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
        QAction* action =
            m_recent_menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
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
    const QString path = urls.first().toLocalFile();
    if (QFileInfo(path).isDir())
        openModelFolder(path);  // a Hugging Face model folder
    else
        openWeightsFile(path);
}

Status MainWindow::exportImage(const QString& path, const QSize& size, double scale)
{
    if (!m_result)
        return Error{tr("nothing to export yet")};
    Status status = ViewExporter::exportPicture(
        path, size, scale, [this](QPainter* painter, const QRectF& target) { m_tabs->renderCurrent(painter, target); });
    if (status) {
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
        m_message->dismiss(MessageBar::Subject::Export);  // an earlier failure is no longer true
        m_last_export_folder = QFileInfo(path).absolutePath();
    } else {
        m_message->showError(tr("Export failed: %1").arg(status.error()), MessageBar::Subject::Export);
    }
    return status;
}

namespace {

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

QString MainWindow::proposedImagePath() const
{
    const QString folder = !m_last_export_folder.isEmpty() && QFileInfo(m_last_export_folder).isDir()
                               ? m_last_export_folder
                               : existingFolder({QStandardPaths::PicturesLocation, QStandardPaths::DocumentsLocation});
    return QDir(folder).filePath(m_tabs->currentExportName());
}

void MainWindow::exportImageInteractively()
{
    ExportImageDialog dialog(proposedImagePath(), m_tabs->currentViewSize(), this);
    if (dialog.exec() == QDialog::Accepted)
        exportImage(dialog.path(), dialog.imageSize(), dialog.scale());
}

Status MainWindow::exportData(const QString& path, int trace_head)
{
    if (!m_result)
        return Error{tr("nothing to export yet")};
    Status status = DataExporter::exportWeights(*m_result, path, trace_head);
    reportDataExport(path, status);
    return status;
}

void MainWindow::startDataExport(const QString& path, int trace_head)
{
    if (!m_result) {
        reportDataExport(path, Error{tr("nothing to export yet")});
        return;
    }
    // Gigabytes for a long input (8,192 tokens x 12 heads: 3.2 GB of .npy, about 6 s): written
    // on a worker while the window stays usable, one export at a time.
    QAction* action = m_actions->get(ActionId::ExportData);
    action->setEnabled(false);
    statusBar()->showMessage(tr("Exporting %1\u2026").arg(QDir::toNativeSeparators(path)));
    QPointer<MainWindow> window(this);
    viewWorkers().start([window, result = m_result, path, trace_head] {
        const Status status = DataExporter::exportWeights(*result, path, trace_head);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [window, path, status] {
                if (!window)
                    return;
                window->m_actions->get(ActionId::ExportData)->setEnabled(true);
                window->reportDataExport(path, status);
                emit window->dataExported(path, status.ok() ? QString() : status.error());
            },
            Qt::QueuedConnection);
    });
}

void MainWindow::reportDataExport(const QString& path, const Status& status)
{
    if (status) {
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
        m_message->dismiss(MessageBar::Subject::Export);  // an earlier failure is no longer true
    } else {
        m_message->showError(tr("Export failed: %1").arg(status.error()), MessageBar::Subject::Export);
    }
}

void MainWindow::exportDataInteractively()
{
    const QString directory = existingFolder({QStandardPaths::DocumentsLocation});
    ExportDataDialog dialog(QDir(directory).filePath(QStringLiteral("attention.csv")), m_head_view->head(), this);
    if (dialog.exec() == QDialog::Accepted && !dialog.path().isEmpty())
        startDataExport(dialog.path(), dialog.withTrace() ? m_head_view->head() : -1);
}

void MainWindow::copyImage()
{
    if (!m_result)
        return;
    const QImage image = ViewExporter::toImage(
        m_tabs->currentViewSize(), devicePixelRatioF(),
        [this](QPainter* painter, const QRectF& target) { m_tabs->renderCurrent(painter, target); });
    QApplication::clipboard()->setImage(image);
    statusBar()->showMessage(tr("Copied the view to the clipboard"), 3000);
}

}  // namespace attn
