#pragma once

#include "app/CommandLine.h"
#include "core/base/Result.h"
#include "ui/export/ViewExporter.h"

namespace attn {

struct AttentionResult;

// The command line's picture options, shared by the single-layer runner, --model and the
// window's screenshot: the one place that turns them into the picture writer's request.
class ExportOptions {
public:
    // --export, --view, --head, --compare, --batch, --size and the heatmap options (--color-scale,
    // --hide-tokens, --top-mass, --aggregate-heads, --reduce, --mark-heads, --sort-heads).
    static ExportRequest request(const CommandLineOptions& options);

    // --head and --compare against the heads the model has: "--head 8: head 8 is out of range: ...".
    static Status checkHeads(const CommandLineOptions& options, int num_heads);

    // --export of one result as --view asks: every view that draws one result (for --model, its
    // selected layer).
    static Status exportResult(const CommandLineOptions& options, const AttentionResult& result);
};

}  // namespace attn
