#pragma once

#include "core/io/JsonWriter.h"
#include "core/lens/AblationScan.h"
#include "core/lens/ActivationPatching.h"
#include "core/lens/LensResult.h"
#include "core/lens/LogitAttribution.h"
#include "core/lens/LogitMetric.h"

#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace attn {

// What --metric, --logit-lens and --attribution computed, for the --json document.
struct HeadsReport {
    struct Metric {
        MetricTokens tokens;
        int position = 0;
        double value = 0.0;
    };
    std::optional<Metric> metric;
    std::optional<LensResult> lens;
    std::optional<AttributionResult> attribution;
    // --attention-kind norms: every layer's value norms ||f^h(x_j)||, L x (H, T)
    // (AttentionNorms::ofModel); empty: no "attention_norms".
    std::vector<Matrix> value_norms;
    // --generate: how many tokens the generation appended ("generated"); the run is the final sequence's.
    std::optional<int> generated;
    // --ablate: the ablated heads (layer, head), in the order given; --ablation-scan: its result.
    std::vector<std::pair<int, int>> ablated;
    std::optional<AblationScanResult> ablation_scan;
    // --patch-from / --patch-from-ids: the patching values at the site.
    std::optional<PatchingResult> patching;
};

// The keys of the contract's "What heads do":
//   "metric": {"target": id, "foil": id or null, "position": P, "value": x}
//   "logit_lens": {"top": (L+1) x T lists of K {"id", "token", "p"},
//                  "target": {"id", "p": (L+1) x T, "rank": (L+1) x T}}   (target: with --metric)
//   "attribution": {"position", "target", "foil", "logit", "embed", "heads": L x H, "attn_bias": L,
//                   "mlp": L, "final_bias"}
//   "ablated": [[L, H], ...]   "ablation_scan": L x H
//   "patching": {"site": "resid" | "attn" | "mlp" | "heads", "values": L x T or L x H}
class HeadsJson {
public:
    // token_text: a vocabulary id's string (convert_ids_to_tokens).
    static void write(JsonWriter& json, const HeadsReport& report, const std::function<QString(int)>& token_text);
};

}  // namespace attn
