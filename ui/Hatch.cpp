#include "Hatch.h"

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
    painter->drawPath(area.simplified());
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
