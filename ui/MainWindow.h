#pragma once

#include "ModelConfig.h"
#include "Result.h"

#include <QMainWindow>

#include <memory>

class QLineEdit;
class QMenu;
class QTabWidget;

namespace attn {

struct AttentionResult;
class ActionRegistry;
class AppSettings;
class AttentionController;
class HeadView;
class HeadsGrid;
class MessageBar;
class ResultStatus;
class SettingsPanel;
class TokenStrip;

// Wires the widgets together: sentence field and token strip on top, settings on the left, the
// views in tabs, menus from the ActionRegistry, status bar. Computation lives in the
// AttentionController, drawing in the views, files in the exporters.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum View { GridView = 0, HeadViewTab = 1 };

    explicit MainWindow(AppSettings* settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    AttentionController* controller() const { return m_controller; }
    QLineEdit* sentenceEdit() const { return m_sentence; }
    TokenStrip* tokenStrip() const { return m_tokens; }
    HeadsGrid* headsGrid() const { return m_grid; }
    HeadView* headView() const { return m_head_view; }
    SettingsPanel* settingsPanel() const { return m_panel; }
    MessageBar* messageBar() const { return m_message; }
    ActionRegistry* actions() const { return m_actions; }
    QString statusText() const;

    // Shows a configuration and sentence given from outside (the command line).
    void applyOptions(const ModelConfig& config, const QString& sentence, View view, int head);
    void setCurrentView(View view);
    View currentView() const;
    // The seams behind the dialogs: what a dialog would do with its answer.
    bool openWeightsFile(const QString& path);
    Status exportImage(const QString& path, const QSize& size, double scale = 1.0);
    Status exportData(const QString& path);
    void copyImage();
    void saveSettings();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void restoreSettings();
    void showResult(std::shared_ptr<const AttentionResult> result);
    void showError(const QString& field, const QString& message);
    void updateRecentMenu();
    void exportImageInteractively();
    void exportDataInteractively();
    void openWeightsInteractively();
    void renderCurrentView(QPainter* painter, const QRectF& target);
    QSize currentViewSize() const;

    AppSettings* m_settings;
    AttentionController* m_controller = nullptr;
    ActionRegistry* m_actions = nullptr;
    QLineEdit* m_sentence = nullptr;
    TokenStrip* m_tokens = nullptr;
    MessageBar* m_message = nullptr;
    QTabWidget* m_tabs = nullptr;
    HeadsGrid* m_grid = nullptr;
    HeadView* m_head_view = nullptr;
    SettingsPanel* m_panel = nullptr;
    QMenu* m_recent_menu = nullptr;
    ResultStatus* m_status = nullptr;
    std::shared_ptr<const AttentionResult> m_result;
    bool m_head_view_stale = true;
    bool m_grid_stale = true;
};

}  // namespace attn
