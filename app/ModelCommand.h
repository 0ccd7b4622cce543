#pragma once

#include "app/CommandLine.h"
#include "core/model/ModelRun.h"
#include "core/model/TransformerModel.h"
#include "core/pipeline/AttentionResult.h"

#include <QTextStream>

namespace attn {

// --model DIR headless: loads the folder, tokenizes (or takes --token-ids), runs the whole model,
// and writes --json (the "Real models" schema) and --export (the selected layer, drawn by the
// single-layer views). Every failure is the contract's one `error:` line.
class ModelCommand {
public:
    static int run(const CommandLineOptions& options, QTextStream& out, QTextStream& err);

    // The selected layer of a run as the single-layer views show a result: its attention input,
    // Q, K, V, every head's weights and the output projection.
    static AttentionResult layerResult(const TransformerModel& model, const QString& dir, const ModelRun& run,
                                       const QStringList& tokens);
};

}  // namespace attn
