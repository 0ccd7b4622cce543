#include "ui/heatmap/Hatch.h"

#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

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
        // The pieces of each line x + y = k * spacing over every rectangle, as x ranges; pieces
        // that meet (a line crossing from one row's run into the next) are drawn as one line, so
        // that no seam shows where rectangles touch.
        std::map<std::int64_t, std::vector<std::pair<double, double>>> pieces;  // k -> [x1, x2]
        for (const QRectF& rect : rects) {
            const auto first = std::int64_t(std::ceil((rect.left() + rect.top()) / spacing));
            for (std::int64_t k = first; k * spacing <= rect.right() + rect.bottom(); ++k) {
                const double c = double(k) * spacing;
                const double x1 = std::max(rect.left(), c - rect.bottom());
                const double x2 = std::min(rect.right(), c - rect.top());
                if (x2 > x1)
                    pieces[k].emplace_back(x1, x2);
            }
        }
        painter->setPen(QPen(line(), 1.0));
        constexpr double kTouching = 1e-6;
        for (auto& [k, ranges] : pieces) {
            const double c = double(k) * spacing;
            std::sort(ranges.begin(), ranges.end());
            double x1 = ranges.front().first;
            double x2 = ranges.front().second;
            for (size_t i = 1; i <= ranges.size(); ++i) {
                if (i < ranges.size() && ranges[i].first <= x2 + kTouching) {
                    x2 = std::max(x2, ranges[i].second);
                    continue;
                }
                // An aliased line also sets the pixel its end lies on, outside the rectangles
                // when the end is on their edge: short of the edges by less than a pixel.
                const double inset = raster && x2 - x1 > 2.0 ? 0.75 : 0.0;
                painter->drawLine(QPointF(x1 + inset, c - x1 - inset), QPointF(x2 - inset, c - x2 + inset));
                if (i < ranges.size())
                    std::tie(x1, x2) = ranges[i];
            }
        }
    }
    painter->restore();
}

}  // namespace attn
