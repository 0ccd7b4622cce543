#pragma once

#include "ui/views/rollout/RolloutPainter.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace attn {

// The Rollout tab: attention rollout of the open model (RolloutPainter), with its choices: how
// each layer's heads are fused, the residual weight (0 to 1), the layer to roll out to, and the
// query whose row is drawn as bars.
class RolloutView : public QWidget {
    Q_OBJECT

public:
    explicit RolloutView(QWidget* parent = nullptr);

    void setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens);
    void clearModel();
    void setColorMap(ColorMaps::Map map);

    const RolloutPainter& painter() const { return m_painter; }
    QWidget* canvas() const { return m_canvas; }
    QComboBox* fusionBox() const { return m_fusion; }
    QComboBox* methodBox() const { return m_method; }
    QSlider* residualSlider() const { return m_residual; }
    QSpinBox* layerBox() const { return m_layer; }
    QSpinBox* queryBox() const { return m_query; }

private:
    void optionsChanged();

    RolloutPainter m_painter;
    QWidget* m_canvas = nullptr;
    QComboBox* m_fusion = nullptr;
    QComboBox* m_method = nullptr;
    QSlider* m_residual = nullptr;
    QLabel* m_residual_value = nullptr;
    QSpinBox* m_layer = nullptr;
    QSpinBox* m_query = nullptr;
};

}  // namespace attn
