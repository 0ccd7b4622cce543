#pragma once

#include "core/base/Result.h"
#include "core/pipeline/RunSettings.h"
#include "core/pipeline/SettingField.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/FileActions.h"
#include "ui/shell/KeyHiding.h"
#include "ui/shell/ModelActions.h"

#include <QMainWindow>

#include <cstdint>
#include <memory>

class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;

namespace attn {

struct AttentionResult;
class ActionRegistry;
class AppSettings;
class AttentionController;
class AttentionKindSwitch;
class HeadView;
class HeadsGrid;
class LayerChooser;
class MessageBar;
class ResultStatus;
class SessionActions;
class SettingsPanel;
class TokenStrip;
class HeatmapMenu;
class InputErrors;
class ViewTabs;
class WalkthroughView;

// Lays the widgets out and wires them together: sentence field and token strip on top, settings
// on the left, the views in tabs (ViewTabs, which also wires the views to each other), menus from
// the ActionRegistry (WindowMenus), status bar. Computation lives in the AttentionController,
// drawing in the views; weight files and exports in FileActions, whole models and examples in
// ModelActions, the input fields' errors in InputErrors, dropped files in FileDrop.
//
// Examples menu: an example replaces the sentence by its rows and the settings by its own (the
// panel shows them, so causal or scale can still be tried on it). Typing a sentence, or choosing
// other weights, returns to the settings and sentence in use before the example.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(AppSettings* settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Characters the sentence field holds (QLineEdit's default is 32,767): a pasted chapter of
    // 20,000 words is some 120,000; longer text is cut, and the message bar says so.
    static constexpr int kMaxSentenceLength = 1 << 22;

    AttentionController* controller() const { return m_controller; }
    FileActions* fileActions() const { return m_file_actions; }
    ModelActions* modelActions() const { return m_model_actions; }
    // File › Save session, Open session, Recent sessions, a dropped session file.
    SessionActions* sessionActions() const { return m_session_actions; }
    // The result the views show (the controller's, but for a sentence typed to leave an example).
    std::shared_ptr<const AttentionResult> result() const { return m_result; }
    QLabel* sentenceError() const { return m_sentence_error; }
    QLineEdit* sentenceEdit() const { return m_sentence; }
    // With a whole model: Text (index 0) or Token ids (kTokenIdsMode) in the sentence field. Each
    // mode keeps its own text; a folder without a tokenizer switches to Token ids when it opens.
    static constexpr int kTokenIdsMode = 1;
    QComboBox* inputModeBox() const { return m_input_mode; }
    void setTokenIdsInput(bool token_ids) { m_model_actions->setTokenIdsInput(token_ids); }
    // Token ids mode, with these ids in the field ("1,2,3").
    void setTokenIds(const QString& ids) { m_model_actions->setTokenIds(ids); }
    TokenStrip* tokenStrip() const { return m_tokens; }
    // Cross-attention: the sentence keys and values come from (empty = self-attention), and its tokens.
    QLineEdit* kvSentenceEdit() const { return m_kv_sentence; }
    TokenStrip* kvTokenStrip() const { return m_kv_tokens; }
    // Masks key `key` as padding, or stops masking it (a click on a key's chip).
    void togglePaddedKey(int key);
    HeadsGrid* headsGrid() const { return m_grid; }
    HeadView* headView() const { return m_head_view; }
    ViewTabs* viewTabs() const { return m_tabs; }
    HeatmapMenu* heatmapMenu() const { return m_heatmap_menu; }
    AttentionKindSwitch* attentionKind() const { return m_kind; }
    WalkthroughView* walkthrough() const;
    QMenu* examplesMenu() const { return m_examples_menu; }
    SettingsPanel* settingsPanel() const { return m_panel; }
    MessageBar* messageBar() const { return m_message; }
    ActionRegistry* actions() const { return m_actions; }
    QString statusText() const;

    // Whole models (ModelActions): a Hugging Face folder read on the controller's worker; until it
    // is read (or if it is refused, with its reason in the message bar and the settings panel) the
    // model or the weights in use stay. closeModel goes back to the settings panel's weights.
    void openModelFolder(const QString& dir, int layer = 0) { m_model_actions->openModelFolder(dir, layer); }
    void closeModel() { m_model_actions->closeModel(); }
    // Model › Induction probe: Token ids mode with kInductionProbeLength random ids given twice,
    // the Model tab sorted and framed by the induction score.
    void runInductionProbe() { m_model_actions->runInductionProbe(); }
    static constexpr int kInductionProbeLength = 40;
    LayerChooser* layerChooser() const { return m_layer_chooser; }
    QMenu* recentModelsMenu() const { return m_model_actions->recentModelsMenu(); }

    // Shows a configuration and sentence given from outside (the command line).
    void applyOptions(const RunSettings& config, const QString& sentence, View view, int head);
    void setMemoryBudget(std::int64_t bytes);  // the settings panel's Memory budget; 0 = the default
    void setCurrentView(View view);
    View currentView() const;
    // The seams behind the dialogs (FileActions): what a dialog would do with its answer. A weight
    // file is read on the worker: its weights are used once read, or its refusal is shown beside the
    // weights and in the message bar, and the previous weights stay (controller()->waitForIdle()
    // waits for either).
    void openWeightsFile(const QString& path) { m_file_actions->openWeightsFile(path); }
    Status exportImage(const QString& path, const QSize& size, double scale = 1.0)
    {
        return m_file_actions->exportImage(path, size, scale);
    }
    // With `trace_head` >= 0 the export adds what reproduces that head (DataExporter).
    Status exportData(const QString& path, int trace_head = -1) { return m_file_actions->exportData(path, trace_head); }
    // The same on a worker (File › Export data): the answer comes as dataExported and in the
    // status bar or the message bar; Export data is disabled meanwhile.
    void startDataExport(const QString& path, int trace_head = -1)
    {
        m_file_actions->startDataExport(path, trace_head);
    }
    // What the token chips' context menu does: hide key `key` in the heatmaps, or show it again.
    // Hiding the last key shown is refused in the message bar.
    void toggleHiddenKey(int key) { m_key_hiding->toggle(key); }
    KeyHiding* keyHiding() const { return m_key_hiding; }
    void copyImage() { m_file_actions->copyImage(); }
    // Where Export image proposes to save: in the folder of the last image exported, else the
    // pictures folder, the documents folder or the home folder, the first that exists.
    QString proposedImagePath() const { return m_file_actions->proposedImagePath(); }
    void saveSettings();
    // The Examples menu's toy example, from the resources built into the program.
    Status showToyExample() { return m_model_actions->showToyExample(); }

signals:
    // A startDataExport finished: `error` is empty when every file was written.
    void dataExported(const QString& path, const QString& error);

public slots:
    // Layer `layer`, head `head` in the One head tab (the Model tab's headActivated).
    void showModelHead(int layer, int head) { m_model_actions->showModelHead(layer, head); }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void restoreSettings();
    void showResult(std::shared_ptr<const AttentionResult> result);
    void showError(SettingField field, const QString& message);
    void showConfig(const RunSettings& config);
    void editSentence(const QString& text);
    void editKvSentence(const QString& text);
    void highlightTokens(int query, int key);  // the query's chip and the key's, on their strips

    AppSettings* m_settings;
    AttentionController* m_controller = nullptr;
    ActionRegistry* m_actions = nullptr;
    FileActions* m_file_actions = nullptr;
    ModelActions* m_model_actions = nullptr;
    SessionActions* m_session_actions = nullptr;
    KeyHiding* m_key_hiding = nullptr;
    InputErrors* m_input_errors = nullptr;
    QLineEdit* m_sentence = nullptr;
    QComboBox* m_input_mode = nullptr;
    QLabel* m_sentence_error = nullptr;  // why the views do not show the sentence, beside it
    TokenStrip* m_tokens = nullptr;
    QLineEdit* m_kv_sentence = nullptr;
    TokenStrip* m_kv_tokens = nullptr;
    MessageBar* m_message = nullptr;
    ViewTabs* m_tabs = nullptr;
    HeadsGrid* m_grid = nullptr;
    HeadView* m_head_view = nullptr;
    SettingsPanel* m_panel = nullptr;
    QDockWidget* m_settings_dock = nullptr;
    HeatmapMenu* m_heatmap_menu = nullptr;
    AttentionKindSwitch* m_kind = nullptr;  // weights <-> norms
    LayerChooser* m_layer_chooser = nullptr;
    QMenu* m_examples_menu = nullptr;
    ResultStatus* m_status = nullptr;
    std::shared_ptr<const AttentionResult> m_result;
};

}  // namespace attn
