#pragma once

#include <QWidget>

class QLabel;
class QSlider;
class QSpinBox;

namespace attn {

// The layer of a whole model that every view shows: a spin box and a slider that move together,
// and the number of layers. Setting the layer from outside (setLayer) does not emit layerChosen.
class LayerChooser : public QWidget {
    Q_OBJECT
public:
    explicit LayerChooser(QWidget* parent = nullptr);

    void setLayerCount(int layers);
    int layerCount() const;
    void setLayer(int layer);
    int layer() const;
    QSpinBox* spinBox() const { return m_spin; }
    QSlider* slider() const { return m_slider; }

signals:
    void layerChosen(int layer);

private:
    void choose(int layer);

    QSpinBox* m_spin = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_count = nullptr;
    bool m_updating = false;
};

}  // namespace attn
