#pragma once

#include "core/pipeline/RunSettings.h"
#include "core/pipeline/SettingField.h"
#include "ui/heatmap/ColorMaps.h"

#include <QWidget>

#include <cstdint>
#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace attn {

struct AttentionResult;
struct ModelConfig;

// The model settings (or, with a whole model open, its configuration read-only): d_model, heads, input dim, seed, weights, layer, causal mask, scale,
// positional encoding and colour map. Every change is sent as a whole RunSettings; a value the
// controller refuses is flagged at its field: a red tint of the field's own palette (so a spin box
// keeps its arrows) and the reason in its tooltip and underneath. A weight file's refusal is long
// and also in the window's message bar: it is not repeated underneath, so the panel does not jump.
class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    void setConfig(const RunSettings& config);  // shows it without emitting configEdited
    RunSettings config() const;
    void setColorMap(ColorMaps::Map map);
    ColorMaps::Map colorMap() const;
    // The field's error as AttentionController::errorChanged reports it; an empty message clears.
    // Fields the panel does not show (the sentence) are ignored.
    void setFieldError(SettingField field, const QString& message);
    // The memory budget in bytes, 0 = the default; shown without emitting memoryBudgetEdited.
    // The field takes --memory-budget's sizes ("2G", "800M", "512 MB"; a bare number is bytes);
    // a size it refuses, or one above the machine's memory, is said beside it and the budget in
    // use stays.
    void setMemoryBudget(std::int64_t bytes);
    std::int64_t memoryBudget() const { return m_memory_budget_bytes; }
    QLineEdit* memoryBudgetBox() const { return m_memory_budget; }
    QString memoryBudgetError() const;
    QString fieldError(SettingField field) const;
    // With file weights the dimensions come from the file: show them and the layers it has.
    void showResult(const AttentionResult& result);
    // A whole model in use: its configuration, read-only, instead of the weights' fields, and a
    // Close model button (closeModelRequested); clearModel shows the fields again.
    void showModel(const ModelConfig& config, const QString& dir, std::int64_t parameters);
    void clearModel();
    bool showsModel() const { return !m_model_dir.isEmpty(); }
    QString modelInfoText() const;  // the configuration shown, as plain text

    QSpinBox* dModelBox() const { return m_d_model; }
    QSpinBox* headsBox() const { return m_heads; }
    QCheckBox* causalBox() const { return m_causal; }
    QComboBox* weightsBox() const { return m_weights; }
    QSpinBox* layerBox() const { return m_layer; }

signals:
    void configEdited(const attn::RunSettings& config);
    void colorMapChanged(attn::ColorMaps::Map map);
    void openWeightsRequested();
    void openModelRequested();
    void closeModelRequested();
    void memoryBudgetEdited(std::int64_t bytes);  // 0: the default

private:
    void emitConfig();
    void setModelShown(bool shown);
    void updateEnabled();
    QLabel* errorLabel();  // red, word-wrapped, hidden until a reason is shown
    void addErrorRow(QFormLayout* form, SettingField field, QWidget* widget, bool reason_underneath = true);
    void editMemoryBudget();

    QSpinBox* m_d_model = nullptr;
    QSpinBox* m_heads = nullptr;
    QSpinBox* m_input_dim = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_weights = nullptr;
    QSpinBox* m_layer = nullptr;
    QCheckBox* m_causal = nullptr;
    QComboBox* m_scale = nullptr;
    QDoubleSpinBox* m_custom_scale = nullptr;
    QCheckBox* m_positional = nullptr;
    QComboBox* m_color_map = nullptr;
    QFormLayout* m_form = nullptr;
    QLabel* m_model_heading = nullptr;
    QLabel* m_model_info = nullptr;
    QPushButton* m_open_model = nullptr;
    QPushButton* m_close_model = nullptr;
    std::vector<QWidget*> m_weight_rows;  // hidden while a model is shown
    QString m_model_dir;
    QLineEdit* m_memory_budget = nullptr;  // empty = the default
    QLabel* m_memory_budget_error = nullptr;
    std::int64_t m_memory_budget_bytes = 0;  // in use; 0 = the default
    struct FieldRow {
        QWidget* widget;  // tinted red while the value is refused
        QLabel* error;    // the reason, under it (nullptr: the message bar says it)
        QString message;
        QString tooltip;  // the field's own, shown again once the value is accepted
    };
    std::map<SettingField, FieldRow> m_rows;
    QString m_weights_file;
    int m_file_heads_value = 0;
    int m_heads_value = RunSettings::kDefaultHeads;
    bool m_heads_is_file = false;  // what the heads box currently edits
    bool m_updating = false;
};

}  // namespace attn
