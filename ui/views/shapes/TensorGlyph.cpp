#include "ui/views/shapes/TensorGlyph.h"

#include <algorithm>

#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>

namespace attn {

QSizeF TensorGlyph::extent() const
{
    const double depth = totalDepth();
    return {face_width + depth * kDepthX, face_height - depth * kDepthY};
}

QRectF TensorGlyph::frontFace(QPointF top_left) const
{
    const double depth = totalDepth();
    return {top_left.x(), top_left.y() - depth * kDepthY, face_width, face_height};
}

QColor TensorGlyph::faceColor(Style style, bool highlighted)
{
    if (highlighted)
        return QColor(0xfb, 0xc9, 0x8e);
    switch (style) {
        case Style::Tensor:
            return QColor(0xd6, 0xe6, 0xf5);
        case Style::Weight:
            return QColor(0xdd, 0xee, 0xd3);
        case Style::Scores:
            return QColor(0xe6, 0xdd, 0xf2);
        case Style::Weights:
            return QColor(0xf3, 0xdc, 0xe8);
    }
    return Qt::white;
}

QColor TensorGlyph::edgeColor(Style style, bool highlighted)
{
    if (highlighted)
        return QColor(0xc2, 0x5e, 0x10);
    switch (style) {
        case Style::Tensor:
            return QColor(0x3a, 0x6e, 0xa5);
        case Style::Weight:
            return QColor(0x4f, 0x83, 0x34);
        case Style::Scores:
            return QColor(0x6a, 0x4c, 0x9c);
        case Style::Weights:
            return QColor(0xa3, 0x3b, 0x74);
    }
    return Qt::black;
}

void TensorGlyph::paint(QPainter& painter, QPointF top_left, double line_width) const
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QRectF front = frontFace(top_left);
    const QPointF depth_unit(kDepthX, kDepthY);

    // Back to front, so the nearer slabs cover the farther ones.
    for (int slab = slabs - 1; slab >= 0; --slab) {
        const bool highlighted = slab == highlighted_slab;
        const QColor face = faceColor(style, highlighted);
        QPen pen(edgeColor(style, highlighted), highlighted ? 1.6 * line_width : line_width);
        pen.setJoinStyle(Qt::MiterJoin);
        painter.setPen(pen);

        const QRectF f = front.translated(depth_unit * (slab * slab_step));
        if (thickness > 0) {
            const QPointF back = depth_unit * thickness;
            const QPolygonF top({f.topLeft(), f.topRight(), f.topRight() + back, f.topLeft() + back});
            const QPolygonF side({f.topRight(), f.bottomRight(), f.bottomRight() + back, f.topRight() + back});
            painter.setBrush(face.lighter(106));
            painter.drawPolygon(top);
            painter.setBrush(face.darker(112));
            painter.drawPolygon(side);
        }
        painter.setBrush(face);
        painter.drawRect(f);

        if (slab == 0 && mask != Mask::None) {
            // The hidden scores: above the diagonal (key after query) or the last keys (padding).
            QPolygonF hidden;
            if (mask == Mask::Causal || mask == Mask::SlidingWindow)
                hidden = QPolygonF({f.topLeft(), f.topRight(), f.bottomRight()});
            else
                hidden = QPolygonF(QRectF(f.right() - f.width() * 0.25, f.top(), f.width() * 0.25, f.height()));
            // Solid, not a pattern brush: patterns do not survive SVG export.
            painter.setBrush(QColor(0xbd, 0xbd, 0xbd));
            painter.setPen(Qt::NoPen);
            painter.drawPolygon(hidden);
            if (mask == Mask::SlidingWindow) {
                // Keys W or more before the query (j <= i - W): the triangle below the band.
                const double band = std::clamp(window_fraction, 0.0, 1.0);
                painter.drawPolygon(QPolygonF({QPointF(f.left(), f.top() + f.height() * band), f.bottomLeft(),
                                               QPointF(f.right() - f.width() * band, f.bottom())}));
            }
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(f);
        }
    }
    painter.restore();
}

}  // namespace attn
