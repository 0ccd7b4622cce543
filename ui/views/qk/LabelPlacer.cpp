#include "ui/views/qk/LabelPlacer.h"

#include <algorithm>
#include <cmath>

namespace attn {

LabelPlacer::LabelPlacer(const QRectF& area, double cell)
    : m_area(area),
      m_cell(cell),
      m_cols(std::max(1, int(std::ceil(area.width() / cell)))),
      m_rows(std::max(1, int(std::ceil(area.height() / cell)))),
      m_taken(size_t(m_cols) * size_t(m_rows), false)
{
}

void LabelPlacer::keepClear(const QPointF& mark, double radius)
{
    // One cell less each side: the mark's own label starts 0.4 radius from its edge, which may
    // share a cell with it.
    const double half = std::max(0.0, radius - m_cell);
    const QRectF square(mark.x() - half, mark.y() - half, 2 * half, 2 * half);
    if (square.intersects(m_area))
        take(square.intersected(m_area));
}

std::optional<QRectF> LabelPlacer::place(const QPointF& mark, double radius, const QSizeF& size)
{
    const double gap = radius * 1.4;
    // Above and below clear the mark, and a label beside it (centred on the mark's height).
    const double rise = std::max(radius, size.height() / 2) + 2.0;
    const QRectF sides[] = {
        QRectF(QPointF(mark.x() + gap, mark.y() - size.height() / 2), size),                  // right
        QRectF(QPointF(mark.x() - gap - size.width(), mark.y() - size.height() / 2), size),   // left
        QRectF(QPointF(mark.x() - size.width() / 2, mark.y() - rise - size.height()), size),  // above
        QRectF(QPointF(mark.x() - size.width() / 2, mark.y() + rise), size),                  // below
    };
    for (const QRectF& rect : sides) {
        if (!m_area.contains(rect) || !isFree(rect))
            continue;
        take(rect);
        return rect;
    }
    return std::nullopt;
}

LabelPlacer::CellSpan LabelPlacer::span(const QRectF& rect) const
{
    // First cell: the one holding the near edge; last: the one holding the far edge, unless the
    // edge lies on a cell boundary (two labels touching along a boundary do not collide).
    const auto first = [this](double offset, int cells) {
        return std::clamp(int(std::floor(offset / m_cell)), 0, cells - 1);
    };
    const auto last = [this](double offset, int cells) {
        return std::clamp(int(std::ceil(offset / m_cell)) - 1, 0, cells - 1);
    };
    return {first(rect.left() - m_area.left(), m_cols), last(rect.right() - m_area.left(), m_cols),
            first(rect.top() - m_area.top(), m_rows), last(rect.bottom() - m_area.top(), m_rows)};
}

bool LabelPlacer::isFree(const QRectF& rect) const
{
    const CellSpan s = span(rect);
    for (int r = s.first_row; r <= s.last_row; ++r)
        for (int c = s.first_col; c <= s.last_col; ++c)
            if (m_taken[size_t(r) * size_t(m_cols) + size_t(c)])
                return false;
    return true;
}

void LabelPlacer::take(const QRectF& rect)
{
    const CellSpan s = span(rect);
    for (int r = s.first_row; r <= s.last_row; ++r)
        std::fill_n(m_taken.begin() + std::ptrdiff_t(size_t(r) * size_t(m_cols) + size_t(s.first_col)),
                    s.last_col - s.first_col + 1, true);
}

}  // namespace attn
