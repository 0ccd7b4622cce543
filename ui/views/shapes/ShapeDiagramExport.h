#pragma once

#include "core/base/Result.h"

#include <QSize>
#include <QString>

namespace attn {

struct AttentionResult;
class ShapeDiagramPainter;

// The shape diagram as a file, for `--export FILE --view shapes --batch N`: PNG (size in pixels),
// SVG and PDF (vector, the same layout at that size). Written atomically: on any error nothing is
// left at the path, not even a temporary file.
class ShapeDiagramExport {
public:
    static Status exportTo(const AttentionResult& result, int batch, int head, const QString& path,
                           QSize size = QSize(1200, 900));
    static Status exportTo(const ShapeDiagramPainter& diagram, const QString& path, QSize size);

    // The painter for a result, as the window shows it (caption: weights and token count).
    static ShapeDiagramPainter painterFor(const AttentionResult& result, int batch, int head);
};

}  // namespace attn
