#pragma once

#include "core/base/Result.h"
#include "core/lens/LogitMetric.h"
#include "core/model/ForwardIntervention.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace attn {

// Activation patching (TransformerLens's `patching`): one activation of a clean run put into the
// corrupted run, which goes on from there; value = (m_patched - m_corrupt) / (m_clean - m_corrupt).
// Sites: Residual (the input of block l at position i), Attention (the attention sub-layer's
// output after the output projection at (l, i)), Mlp (the MLP's output at (l, i)), HeadZ (head h's
// z at every position of layer l).
struct PatchingResult {
    InterventionSite site = InterventionSite::Residual;
    int num_layers = 0;
    int columns = 0;             // T (Residual, Attention, Mlp) or H (HeadZ)
    double clean = 0.0;          // m_clean
    double corrupt = 0.0;        // m_corrupt
    std::vector<double> values;  // (L, columns) row-major

    double at(int layer, int column) const { return values[size_t(layer) * size_t(columns) + size_t(column)]; }
};

struct PatchingRequest {
    std::vector<int> clean_ids;  // as many as the corrupted run's
    InterventionSite site = InterventionSite::Residual;
    int position = 0;  // the metric's
    MetricTokens tokens;
    // Bytes the scan may hold at once (plannedBytes); 0: no limit.
    std::int64_t memory_budget = 0;
};

// L x T (or L x H) patched passes, each from its own layer: the pass patching layer l begins at
// block l from the residual entering it in the corrupted run (TransformerForward::runIntervened
// with startAt(l), output only), so the layers before it are never computed again. The clean
// run is one pass over the clean ids, output only, recording the site's activations. The passes
// run side by side on the threads of the calling one's OpenMP team, each on one thread, the
// longest (layer 0) first. An activation equal in both runs gives the corrupted run again: its
// value is 0 without a pass.
//   cost: the clean pass, plus per layer l up to T (or H) passes of L - l blocks;
//   memory: the clean run's activations at the site, and one pass's activations per thread
//   (plannedBytes, checked against the budget before anything is allocated).
// `corrupted` is a run over the main ids that kept its residual stream (pre-norm models; the BERT
// family's layer inputs are kept always). control: progress after each pass; a cancelled scan
// returns an error saying so.
class ActivationPatching {
public:
    static Result<PatchingResult> run(const ModelConfig& config, const ModelWeights& weights, const ModelRun& corrupted,
                                      const PatchingRequest& request, const ScanControl& control = {});

    // What the scan holds at once with `threads` passes side by side.
    static std::int64_t plannedBytes(const ModelConfig& config, int seq_len, InterventionSite site, int threads);

    // "resid", "attn", "mlp", "heads" (the contract's --patch-site) and back.
    static QString siteName(InterventionSite site);
    static std::optional<InterventionSite> siteNamed(const QString& name);

    static QString cancelledMessage() { return QStringLiteral("the patching scan was cancelled"); }
};

}  // namespace attn
