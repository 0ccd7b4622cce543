#pragma once

#include "core/model/ModelRun.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;

namespace attn {

class ModelSession;

// The metric a view measures a model's prediction by: a target token, an optional foil (then
// logit(target) - logit(foil)) and the position predicted at (the last one until the user picks
// another). Target and foil are picked from the head's top predictions there or typed (TokenField:
// "␣cat", "Ġcat" or an id); a token that is not one entry of the vocabulary shows its error beside
// its field. One row of controls, shared by the Attribution and Ablation scan tabs.
class MetricChooser : public QWidget {
    Q_OBJECT

public:
    // object_prefix names the fields ("Attribution" -> AttributionTarget, AttributionFoil,
    // AttributionPosition, AttributionTargetError, AttributionFoilError).
    MetricChooser(const QString& object_prefix, const QString& target_tip, QWidget* parent = nullptr);

    struct Choice {
        int position = 0;
        std::optional<int> target;  // none typed: the top prediction
        std::optional<int> foil;
    };

    // Another model: the fields emptied, the position back to the last one.
    void setModel(std::shared_ptr<const ModelSession> model);
    // A run of that model: the position's range (kept where the user put it, if it still fits).
    void setRun(const ModelRun* run);
    void clear();  // no model: the position disabled

    // The fields read; an error shows beside its field (nullopt), others are cleared.
    std::optional<Choice> read();
    // The fields' items: the head's top predictions at the position (refilled only when they
    // change, so that the text being typed stays).
    void setTopPredictions(const std::vector<int>& ids);
    void showTargetError(const QString& message);
    QString tokenShown(int id) const;
    // "logit(␣Paris) − logit(␣Rome) at position 7 ‘of’": the metric, its tokens and the
    // position's token as a person reads them (foil empty: none).
    static QString metricText(const QString& target, const QString& foil, int position, const QString& at);

    QComboBox* targetBox() const { return m_target; }
    QComboBox* foilBox() const { return m_foil; }
    QSpinBox* positionBox() const { return m_position; }
    QLabel* targetError() const { return m_target_error; }
    QLabel* foilError() const { return m_foil_error; }

signals:
    void changed();  // the user changed a field

private:
    std::shared_ptr<const ModelSession> m_model;
    QStringList m_top;
    QComboBox* m_target = nullptr;
    QComboBox* m_foil = nullptr;
    QSpinBox* m_position = nullptr;
    QLabel* m_target_error = nullptr;
    QLabel* m_foil_error = nullptr;
    bool m_position_chosen = false;  // by the user; until then the last position
    bool m_filling = false;          // the fields are being filled here, not typed
};

}  // namespace attn
