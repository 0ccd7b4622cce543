#include "ui/heatmap/Hatch.h"

#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace attn {

void Hatch::draw(QPainter* painter, const QList<QRectF>& rects, double spacing, bool with_lines)
{
    if (rects.isEmpty())
        return;
    painter->save();
    QPainterPath area;
    for (const QRectF& rect : rects)
        area.addRect(rect);
    painter->setPen(Qt::NoPen);
    painter->setBrush(fill());
    // Vector and recorded output (SVG, PDF, QPicture) gets one outline, so that viewers show no
    // seams between neighbouring rectangles. A raster device fills the union as it is: the
    // merge costs O(n^2) (a causal T = 512 head is 511 rectangles; merging them took 3/4 of a
    // causal T = 512 keystroke).
    const QPaintEngine* engine = painter->paintEngine();
    const bool raster = engine && engine->type() == QPaintEngine::Raster;
    if (raster)
        area.setFillRule(Qt::WindingFill);  // the union of the rectangles
    painter->drawPath(raster ? area : area.simplified());
    if (with_lines) {
        painter->setPen(QPen(line(), 1.0));
        for (const QRectF& rect : rects) {
            const double first = std::ceil((rect.left() + rect.top()) / spacing) * spacing;
            for (double c = first; c <= rect.right() + rect.bottom(); c += spacing) {
                const double x1 = std::max(rect.left(), c - rect.bottom());
                const double x2 = std::min(rect.right(), c - rect.top());
                if (x2 > x1)
                    painter->drawLine(QPointF(x1, c - x1), QPointF(x2, c - x2));
            }
        }
    }
    painter->restore();
}

}  // namespace attn
