#pragma once

#include "ui/views/HeadlessPicture.h"

#include <QSize>

namespace attn {

// The Lines picture of --export: the tab's own canvas offscreen at the picture's size.
class LinesPicture {
public:
    // --view lines of the shown result, --head (-1: all heads overlaid) and --top-mass.
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
    // One head, or all heads overlaid with head = -1; with top_mass < 1 only each row's strongest
    // keys that reach that share. The result is borrowed: it must outlive the picture.
    static Result<HeadlessPicture> make(const AttentionResult& result, int head, const QSize& size, double top_mass);
};

}  // namespace attn
