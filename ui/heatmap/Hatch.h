#pragma once

#include <QColor>
#include <QList>
#include <QRectF>

class QPainter;

namespace attn {

// How masked cells look everywhere (heatmaps, colour-bar legend): a neutral grey with diagonal
// lines, never a colour of the colour map. The lines are cut to the rectangles by arithmetic,
// not by a clip path, so SVG and PDF output look the same as the screen; there each line is a
// filled band cut exactly to the rectangles, so no ink reaches a neighbouring cell at any zoom.
struct Hatch {
    static QColor fill() { return {0xde, 0xde, 0xde}; }
    static QColor line() { return {0x8c, 0x8c, 0x8c}; }
    // Lines of x + y = k * spacing (one global family, so neighbouring rectangles join up).
    static void draw(QPainter* painter, const QList<QRectF>& rects, double spacing, bool with_lines = true);
};

}  // namespace attn
