#pragma once

#include "app/HeadsOptions.h"
#include "core/base/Result.h"
#include "core/model/ForwardIntervention.h"

#include <utility>
#include <vector>

class QCommandLineParser;

namespace attn {

// Head ablation, with --model (docs/command-line.md): --ablate L:H[,L:H...] with
// --ablation zero|mean, and --ablation-scan (needs --metric).
struct InterventionOptions {
    std::vector<std::pair<int, int>> ablate;  // (layer, head), in the order given
    HeadAblation mode = HeadAblation::Zero;
    bool scan = false;

    bool any() const { return !ablate.empty() || scan; }
};

class InterventionCommandLine {
public:
    static const char* const kValued[];
    static const char* const kFlags[];
    // Checks what needs no model folder: the L:H pairs' form, the mode, --ablation-scan without
    // --metric, any of them without --model. Layers and heads are checked against the model.
    static Result<InterventionOptions> parse(const QCommandLineParser& parser, const HeadsOptions& heads);
    // Layers and heads inside the model's.
    static Status checkRange(const InterventionOptions& options, int num_layers, int num_heads);
};

}  // namespace attn
