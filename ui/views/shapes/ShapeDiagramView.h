#pragma once

#include "ui/views/shapes/ShapeDiagramPainter.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace attn {

struct AttentionResult;

// The shape diagram of the current computation (ShapeDiagramPainter) as a widget: follows the
// result and the selected head, and shows a step's formula, shape, parameters and cost on hover.
class ShapeDiagramView : public QWidget {
    Q_OBJECT
public:
    explicit ShapeDiagramView(QWidget* parent = nullptr);
    ~ShapeDiagramView() override;

    int batch() const { return m_batch; }
    int head() const { return m_head; }
    // The diagram as last set up, or nullptr before the first result.
    const ShapeDiagramPainter* diagram() const { return m_diagram ? &*m_diagram : nullptr; }
    // The step under a point (an index into diagram()->model().steps()) and its tooltip.
    int stepAt(QPointF point) const;
    QString toolTipAt(QPointF point) const;

    QSize sizeHint() const override { return {1200, 900}; }
    QSize minimumSizeHint() const override { return {720, 540}; }

public slots:
    void setResult(std::shared_ptr<const AttentionResult> result);
    void setBatch(int batch);
    void setHead(int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    void rebuild();
    void layoutHits() const;

    std::shared_ptr<const AttentionResult> m_result;
    std::optional<ShapeDiagramPainter> m_diagram;
    int m_batch = 1;
    int m_head = 0;
    int m_hovered = -1;
    mutable std::vector<ShapeDiagramPainter::HitRegion> m_hits;
    mutable bool m_hits_valid = false;
};

}  // namespace attn
