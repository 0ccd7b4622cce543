#pragma once

#include "AttentionWeights.h"
#include "Result.h"

#include <QString>

namespace attn {

struct WeightFileOptions {
    int layer = 0;      // which attention layer, when the file holds several (see WeightNaming.h)
    int num_heads = 0;  // 0: take it from the file (safetensors metadata, npz or json key)
};

struct LoadedWeights {
    AttentionWeights weights;
    int layer_count = 1;  // attention layers the file holds (GPT-2 h.N, or several prefixes)
    QString scheme;       // "nn.MultiheadAttention", "q_proj/k_proj/v_proj", "gpt2" or "json"
    QString tensor_prefix = {};  // the chosen layer's name prefix, e.g. "h.3.attn."; empty for json
};

// Reads attention weights from .safetensors, .npz or .json, in any of the naming schemes of the
// command-line contract, converting F16/BF16/F32/F64 to float32. The file is untrusted: every
// failure is an Error whose message starts with the file's name and gives the reason
// ("model.safetensors: tensor 'in_proj_weight': ..."); nothing is allocated from a size the file
// claims before the claim has been checked against the file.
class WeightFile {
public:
    static Result<LoadedWeights> load(const QString& path, const WeightFileOptions& options = {});
};

}  // namespace attn
