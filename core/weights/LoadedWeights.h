#pragma once

#include "core/attention/AttentionWeights.h"

#include <QString>

namespace attn {

// One attention layer's weights as read from a file, and where in the file they came from.
struct LoadedWeights {
    AttentionWeights weights;
    int layer_count = 1;         // attention layers the file holds (GPT-2 h.N, or several prefixes)
    QString scheme;              // "nn.MultiheadAttention", "q_proj/k_proj/v_proj", "gpt2" or "json"
    QString tensor_prefix = {};  // the chosen layer's name prefix, e.g. "h.3.attn."; empty for json
};

}  // namespace attn
