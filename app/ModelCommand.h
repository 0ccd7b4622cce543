#pragma once

#include "app/CommandLine.h"
#include "core/lens/LogitMetric.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelSession.h"

#include <QTextStream>

#include <optional>

namespace attn {

// --model DIR headless: opens the folder (ModelSession, the window's policy too), tokenizes (or
// takes --token-ids), runs the whole model, and writes --json (the "Real models" schema) and
// --export (every layer x head with --view model, the whole model's chain with --view
// model-shapes, else the selected layer, drawn by the single-layer views). Every failure is the
// contract's one `error:` line.
class ModelCommand {
public:
    static int run(const CommandLineOptions& options, QTextStream& out, QTextStream& err);

    // --export: --view model draws every layer x head, --view model-shapes the whole model's chain
    // of blocks, --view rollout the rollout across layers, the other views (shapes too) the selected
    // layer, --view lens the logit lens (tracking --metric's TARGET), --view attribution the
    // direct logit attribution of --metric at --position. tokens: as
    // convert_ids_to_tokens spells them. value_norms (--attention-kind norms): every layer's (H, T),
    // drawn as ||A_ij f(x_j)|| in place of the weights; null: the weights.
    static Status exportPicture(const CommandLineOptions& options, const ModelSession& session, ModelRun& run,
                                const QStringList& tokens, std::optional<MetricTokens> metric = std::nullopt,
                                const std::vector<Matrix>* value_norms = nullptr);
};

}  // namespace attn
