#pragma once

#include "core/analysis/ShapeData.h"
#include "ui/views/PaintTarget.h"

#include <QRectF>
#include <QSize>
#include <QString>

#include <vector>

class QPainter;

namespace attn {

// Draws the shape diagram of a ShapeData into any QPainter (widget, QImage, QSvgGenerator,
// QPdfWriter): every tensor and weight as a box whose sides are log-scaled from its dimensions,
// its shape written under it, the selected head highlighted in the split tensors, and the totals.
// The layout follows the rectangle, with text sized for it (designed at 1200 x 900).
class ShapeDiagramPainter {
public:
    // Where a step's box landed, so a widget can find what the mouse is over.
    struct HitRegion {
        QRectF rect;
        int step = -1;  // index into model().steps()
    };

    explicit ShapeDiagramPainter(ShapeData model, int selected_head = 0);

    const ShapeData& model() const { return m_model; }
    int selectedHead() const { return m_selected_head; }
    void setSelectedHead(int head) { m_selected_head = head; }
    void setHoveredStep(int step) { m_hovered_step = step; }  // drawn on screen only
    // A line under the title, e.g. "random (seed 0) · 11 tokens".
    void setCaption(const QString& caption) { m_caption = caption; }

    std::vector<HitRegion> paint(QPainter& painter, const QRectF& rect,
                                 PaintTarget target = PaintTarget::Picture) const;

    // Rich text for a step's tooltip: formula, shape, parameters, multiply-adds.
    QString toolTip(int step) const;

    static QSize defaultSize() { return {1200, 900}; }

private:
    ShapeData m_model;
    int m_selected_head = 0;
    int m_hovered_step = -1;
    QString m_caption;
};

}  // namespace attn
