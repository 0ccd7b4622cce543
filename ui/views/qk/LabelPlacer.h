#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <optional>
#include <vector>

namespace attn {

// Places text labels beside point marks so that no two overlap and none covers a mark kept clear:
// each label goes to the first free side of its mark (right, left, above, below) inside the area,
// or is left out. Labels placed first win, so the caller offers the ones that matter most first.
// The area is tracked as a grid of small cells (any label touching a taken cell collides), so each
// placement costs the cells its rectangle covers, not a comparison with every label placed before.
class LabelPlacer {
public:
    explicit LabelPlacer(const QRectF& area, double cell = 2.0);

    // No label may cover the mark of `radius` at `mark` (the caller keeps every mark clear before
    // placing the first label, so that a label never hides another point).
    void keepClear(const QPointF& mark, double radius);

    // Where to draw a label of `size` beside a mark of `radius` at `mark`, now taken; nothing when
    // every side overlaps a label already placed or a mark kept clear, or leaves the area.
    std::optional<QRectF> place(const QPointF& mark, double radius, const QSizeF& size);

private:
    bool isFree(const QRectF& rect) const;
    void take(const QRectF& rect);
    // The cells a rectangle covers, clamped to the grid: [first_col, last_col] x [first_row, last_row].
    struct CellSpan {
        int first_col, last_col, first_row, last_row;
    };
    CellSpan span(const QRectF& rect) const;

    QRectF m_area;
    double m_cell;
    int m_cols;
    int m_rows;
    std::vector<bool> m_taken;  // (m_rows, m_cols), row-major
};

}  // namespace attn
