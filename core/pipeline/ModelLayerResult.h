#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/base/Result.h"
#include "core/model/ModelRun.h"
#include "core/model/TransformerModel.h"
#include "core/pipeline/AttentionResult.h"

#include <QStringList>

namespace attn {

// One layer of a whole model's run as the single-layer views show a result: that layer's
// attention input, Q, K, V, every head's weights (the run's kept maps) and the output projection.
// The layer the run selected is taken as it is; any other layer's Q, K, V are made again from its
// kept input by one attention layer (never the layers before it), so choosing a layer costs one
// layer's projections, not a forward pass.
class ModelLayerResult {
public:
    // tokens: one per position of the run; `source` names the model in the description (its
    // folder). TraceDetail::Full also gives the raw scores (the walkthrough's), at T x T per head.
    static Result<AttentionResult> make(const TransformerModel& model, const QString& source, const ModelRun& run,
                                        const QStringList& tokens, int layer,
                                        TraceDetail detail = TraceDetail::Probabilities);
};

}  // namespace attn
