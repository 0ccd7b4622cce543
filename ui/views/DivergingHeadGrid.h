#pragma once

#include <QRectF>

class QPainter;

namespace attn::DivergingHeadGrid {

// What the L x H heatmaps on the diverging colour map (the Attribution and Ablation tabs) draw
// alike around their cells.

// The colour bar for values from -scale to +scale: the gradient (bottom to top), its frame, and
// "+scale", "0", "−scale" in a column label_width wide right of it, `line` high text.
void paintColourBar(QPainter& painter, const QRectF& rect, double scale, double label_width, double line);

// The head numbers above the heatmap's columns (every n-th when cells are narrow), in a band
// `band` high, then the heatmap's frame.
void paintHeadNumbersAndFrame(QPainter& painter, const QRectF& heatmap, int num_heads, double cell_width, double band);

}  // namespace attn::DivergingHeadGrid
