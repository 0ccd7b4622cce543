#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <cstdint>

class QPainter;

namespace attn {

// One tensor of the shape diagram drawn as a box in oblique projection: a face of
// (rows x columns), a thickness for the batch, and optionally several slabs one behind the other
// (the heads), one of them highlighted. Sizes are in pixels; see ShapeDiagramPainter for the
// log scale that turns dimensions into pixels.
struct TensorGlyph {
    enum class Style { Tensor, Weight, Scores, Weights };
    enum class Mask { None, Causal, Padding, SlidingWindow };

    Style style = Style::Tensor;
    double face_width = 10;      // columns (last axis)
    double face_height = 10;     // rows
    double thickness = 0;        // batch depth of one slab; 0 = a flat matrix
    int slabs = 1;               // heads, front (0) to back
    double slab_step = 0;        // depth between consecutive slabs
    int highlighted_slab = -1;   // the selected head, or -1
    Mask mask = Mask::None;      // drawn on the front face of mask steps
    double window_fraction = 0;  // SlidingWindow: W / T, the band of keys each query still sees

    // The depth axis is drawn up and to the right: (dx, dy) per pixel of depth.
    static constexpr double kDepthX = 0.62;
    static constexpr double kDepthY = -0.42;

    double totalDepth() const { return (slabs - 1) * slab_step + thickness; }
    QSizeF extent() const;
    // Where the front face lands when the glyph's bounding box starts at top_left.
    QRectF frontFace(QPointF top_left) const;
    void paint(QPainter& painter, QPointF top_left, double line_width) const;

    static QColor faceColor(Style style, bool highlighted);
    static QColor edgeColor(Style style, bool highlighted);
};

}  // namespace attn
