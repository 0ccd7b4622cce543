#pragma once

#include "core/base/Result.h"
#include "core/pipeline/SettingField.h"
#include "ui/workers/LatestJob.h"

#include <QObject>
#include <QSize>
#include <QString>

class QMenu;

namespace attn {

class AppSettings;
class MainWindow;
class RecentItems;

// The File menu's weight files and exports: opening a weight file (the dialog, File › Open recent,
// a dropped file), what the window says when it is read or refused, and exporting or copying the
// current view and its data. The window holds the widgets; this object decides what to do with
// them.
class FileActions : public QObject {
    Q_OBJECT
public:
    FileActions(MainWindow& window, AppSettings* settings, QMenu* recent_menu);

    // A weight file is read on the worker: its weights are used once read, or its refusal is shown
    // beside the weights and in the message bar, and the previous weights stay.
    void openWeightsFile(const QString& path);
    void openWeightsInteractively();
    // The remembered weight file is being read at start-up: a refusal says so.
    void setRestoring(bool restoring) { m_restoring = restoring; }
    // The controller's refusal of a file as the window words it (a file split into the Heads
    // field's number of heads says so), and, for the weights or their layer, said in the message
    // bar; true when it was a weight file's.
    QString explainError(SettingField field, const QString& message);
    bool showWeightsError(SettingField field, const QString& message);

    Status exportImage(const QString& path, const QSize& size, double scale = 1.0);
    void exportImageInteractively();
    // Where Export image proposes to save: in the folder of the last image exported, else the
    // pictures folder, the documents folder or the home folder, the first that exists.
    QString proposedImagePath() const;
    // With `trace_head` >= 0 the export adds what reproduces that head (DataExporter).
    Status exportData(const QString& path, int trace_head = -1);
    // The same on a worker: the answer comes as dataExported and in the status bar or the message
    // bar; Export data is disabled meanwhile.
    void startDataExport(const QString& path, int trace_head = -1);
    void exportDataInteractively();
    void copyImage();

signals:
    // A startDataExport finished: `error` is empty when every file was written.
    void dataExported(const QString& path, const QString& error);

private:
    void weightsFileLoaded(const QString& path);
    void reportDataExport(const QString& path, const Status& status);
    int headsField() const;

    MainWindow& m_window;
    AppSettings* m_settings;
    RecentItems* m_recent;
    LatestJob m_data_export{this};
    QString m_last_export_folder;  // of the last image exported, proposed for the next one
    QString m_opening_file;        // the file openWeightsFile asked for, until it is read or refused
    int m_heads_from_field = 0;    // the Heads field's number, for an opening file that states none
    bool m_restoring = false;      // the remembered weight file is being read at start-up
};

}  // namespace attn
