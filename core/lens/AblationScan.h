#pragma once

#include "core/base/Result.h"
#include "core/lens/LogitMetric.h"
#include "core/model/ForwardIntervention.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

#include <vector>

namespace attn {

// The ablation scan: for every head (l, h), the metric with that one head ablated minus the
// metric of the plain run.
struct AblationScanResult {
    int num_layers = 0;
    int num_heads = 0;
    HeadAblation mode = HeadAblation::Zero;
    double plain = 0.0;           // the plain run's metric
    std::vector<double> effects;  // (L, H) row-major

    double at(int layer, int head) const { return effects[size_t(layer) * size_t(num_heads) + size_t(head)]; }
};

// L x H ablated passes, each from its own layer on: head (l, h)'s pass begins at block l from the
// residual entering it in the plain run (TransformerForward::runIntervened with startAt(l),
// output only), so the layers before it are never computed again. The passes run side by side
// on the threads of the calling one's OpenMP team, each on one thread.
//   cost: sum over l of H (L - l) blocks; memory: one pass's activations per thread.
// A pure function of (config, weights, plain run, request): `plain` is a run over the ids that
// kept its residual stream (pre-norm models; the BERT family's layer inputs are kept always).
// control: progress after each pass; a cancelled scan returns an error saying so.
class AblationScan {
public:
    static Result<AblationScanResult> run(const ModelConfig& config, const ModelWeights& weights, const ModelRun& plain,
                                          int position, const MetricTokens& tokens, HeadAblation mode,
                                          const ScanControl& control = {});

    static QString cancelledMessage() { return QStringLiteral("the ablation scan was cancelled"); }
};

}  // namespace attn
