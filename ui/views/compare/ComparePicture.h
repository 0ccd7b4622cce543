#pragma once

#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/views/HeadlessPicture.h"

#include <QSize>

namespace attn {

// The Compare picture of --export: head a beside head b on one colour scale, and a - b centred
// at 0, drawn by the tab's own figure offscreen at the picture's size.
class ComparePicture {
public:
    // --view compare --compare A,B of the shown result. Heads out of range are an error naming them.
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
    // Side B from another result (other settings) labelled `label_b`; both results are borrowed,
    // so they must outlive the picture.
    static Result<HeadlessPicture> make(const AttentionResult& result_a, int head_a, const AttentionResult& result_b,
                                        int head_b, const QString& label_b, const QSize& size, ColorScale color_scale,
                                        CellReduction reduction);
};

}  // namespace attn
