#include "ui/heatmap/Hatch.h"

#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <tuple>
#include <utility>
#include <vector>

namespace attn {

namespace {

constexpr double kLineWidth = 1.0;

// The pieces of each line x + y = k * spacing over every rectangle, as x ranges; pieces that meet
// (a line crossing from one row's run into the next) are joined, so that no seam shows where
// rectangles touch. Aliased lines of one pixel: the screen's and the window's images.
void drawLinesOnRaster(QPainter* painter, const QList<QRectF>& rects, double spacing)
{
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
    painter->setPen(QPen(Hatch::line(), kLineWidth));
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
            // An aliased line also sets the pixel its end lies on, outside the rectangles when
            // the end is on their edge: short of the edges by less than a pixel.
            const double inset = x2 - x1 > 2.0 ? 0.75 : 0.0;
            painter->drawLine(QPointF(x1 + inset, c - x1 - inset), QPointF(x2 - inset, c - x2 + inset));
            if (i < ranges.size())
                std::tie(x1, x2) = ranges[i];
        }
    }
}

// The convex polygon `polygon` keeps on the side where sign * (x + y - c) >= 0 (Sutherland-Hodgman).
QPolygonF clippedToHalfPlane(const QPolygonF& polygon, double c, double sign)
{
    QPolygonF kept;
    const auto side = [&](const QPointF& p) { return sign * (p.x() + p.y() - c); };
    for (qsizetype i = 0; i < polygon.size(); ++i) {
        const QPointF a = polygon[i];
        const QPointF b = polygon[(i + 1) % polygon.size()];
        const double sa = side(a);
        const double sb = side(b);
        if (sa >= 0)
            kept << a;
        if ((sa >= 0) != (sb >= 0))
            kept << a + (b - a) * (sa / (sa - sb));
    }
    return kept;
}

// Vector and recorded output (SVG, PDF, QPicture), where a stroke's width and caps would reach
// past the rectangles' edges (stubs on the neighbouring cells, plain at high zoom): each line is
// filled as the band of its width cut to each rectangle, exactly; one line's pieces are merged
// into one outline, so viewers that antialias show no seam where rectangles touch.
void drawLinesAsBands(QPainter* painter, const QList<QRectF>& rects, double spacing)
{
    // Half the line's width in units of x + y (the band |x + y - c| <= reach is the line's width).
    const double reach = kLineWidth / 2 * std::numbers::sqrt2;
    std::map<std::int64_t, std::vector<QPolygonF>> bands;  // k -> the line's pieces
    for (const QRectF& rect : rects) {
        const QPolygonF corners(rect);
        const auto first = std::int64_t(std::ceil((rect.left() + rect.top() - reach) / spacing));
        for (std::int64_t k = first; k * spacing - reach < rect.right() + rect.bottom(); ++k) {
            const double c = double(k) * spacing;
            QPolygonF piece = clippedToHalfPlane(clippedToHalfPlane(corners, c - reach, 1.0), c + reach, -1.0);
            if (piece.size() >= 3)
                bands[k].push_back(std::move(piece));
        }
    }
    QPainterPath lines;
    for (const auto& [k, pieces] : bands) {
        QPainterPath band;
        for (const QPolygonF& piece : pieces) {
            band.addPolygon(piece);
            band.closeSubpath();
        }
        lines.addPath(pieces.size() > 1 ? band.simplified() : band);
    }
    lines.setFillRule(Qt::WindingFill);
    painter->setPen(Qt::NoPen);
    painter->setBrush(Hatch::line());
    painter->drawPath(lines);
}

}  // namespace

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
    if (!with_lines) {
        painter->restore();
        return;
    }
    if (raster)
        drawLinesOnRaster(painter, rects, spacing);
    else
        drawLinesAsBands(painter, rects, spacing);
    painter->restore();
}

}  // namespace attn
