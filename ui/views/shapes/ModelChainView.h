#pragma once

#include "ui/views/shapes/ModelChainPainter.h"

#include <QWidget>

#include <optional>

namespace attn {

// The whole model's chain of blocks (ModelChainPainter) as a widget: a box's formula, shape and
// parameters on hover; a click on the attention box asks to open the single-layer diagram.
class ModelChainView : public QWidget {
    Q_OBJECT
public:
    explicit ModelChainView(QWidget* parent = nullptr);

    void setModel(const ModelConfig& config, int seq_len);
    void clearModel();
    const ModelChainPainter* chain() const { return m_chain ? &*m_chain : nullptr; }
    // Where a box is drawn now (empty when absent), e.g. to click it in a test.
    QRectF boxRect(ModelChainPainter::Box box) const;

    QSize sizeHint() const override { return ModelChainPainter::defaultSize(); }
    QSize minimumSizeHint() const override { return {720, 400}; }

signals:
    void attentionActivated();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    std::optional<ModelChainPainter::Box> boxAt(QPointF point) const;

    std::optional<ModelChainPainter> m_chain;
    mutable QList<ModelChainPainter::HitRegion> m_hits;
};

}  // namespace attn
