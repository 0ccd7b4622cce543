#pragma once

#include "app/CommandLine.h"
#include "core/model/ModelRun.h"
#include "core/model/TransformerModel.h"

#include <QTextStream>

namespace attn {

// --model DIR headless: loads the folder, tokenizes (or takes --token-ids), runs the whole model,
// and writes --json (the "Real models" schema) and --export (every layer x head with --view model,
// the whole model's chain with --view shapes, else the selected layer, drawn by the single-layer
// views). Every failure is the contract's one `error:` line.
class ModelCommand {
public:
    static int run(const CommandLineOptions& options, QTextStream& out, QTextStream& err);

    // --export: --view model draws every layer x head, --view model-shapes the whole model's chain
    // of blocks, --view rollout the rollout across layers, the other views (shapes too) the selected
    // layer. byte_level: the tokens are byte-level BPE pieces (for their readable labels).
    static Status exportPicture(const CommandLineOptions& options, const TransformerModel& model, const ModelRun& run,
                                const QStringList& tokens, bool byte_level);
};

}  // namespace attn
