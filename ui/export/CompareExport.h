#pragma once

#include "core/base/Result.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapReduction.h"

#include <QSize>
#include <QString>

namespace attn {

struct AttentionResult;

// Headless pictures of the compare and lines views, as the window draws them, for --export.
// The format comes from the extension (.png, .svg, .pdf); the file is written atomically and
// nothing is left behind on any error. `size` is in pixels, in ViewExporter's one convention.
class CompareExport {
public:
    // Head a beside head b of the same result on one colour scale, and a - b centred at 0
    // (--view compare --compare A,B). Heads out of range are an error naming them.
    static Status exportCompare(const AttentionResult& result, int head_a, int head_b, const QString& path,
                                const QSize& size, double scale = 1.0,
                                ColorScale color_scale = ColorScale::WithoutOneKeyRows,
                                CellReduction reduction = CellReduction::Max);
    // The same with side B from another result (other settings), e.g. a causal twin.
    static Status exportCompare(const AttentionResult& result_a, int head_a, const AttentionResult& result_b,
                                int head_b, const QString& label_b, const QString& path, const QSize& size,
                                double scale = 1.0, ColorScale color_scale = ColorScale::WithoutOneKeyRows,
                                CellReduction reduction = CellReduction::Max);
    // The lines view (--view lines): one head, or all heads overlaid with head = -1; with
    // top_mass < 1 only each row's strongest keys that reach that share (--top-mass).
    static Status exportLines(const AttentionResult& result, int head, const QString& path, const QSize& size,
                              double scale = 1.0, double top_mass = 1.0);
};

}  // namespace attn
