#pragma once

#include "core/base/Result.h"

namespace attn {

struct AttentionResult;
class ShapeDiagramPainter;

// The shape diagram of a result, as the window shows it and as `--export FILE --view shapes
// --batch N` writes it (through ui/export's ViewExporter, the one picture writer).
class ShapeDiagramExport {
public:
    // A batch size of at least 1, a head that exists and something computed; else an error
    // naming the option.
    static Status check(const AttentionResult& result, int batch, int head);

    // The painter for a result, as the window shows it (caption: weights and token count).
    static ShapeDiagramPainter painterFor(const AttentionResult& result, int batch, int head);
};

}  // namespace attn
