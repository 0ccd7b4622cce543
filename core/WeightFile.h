#pragma once

#include "AttentionWeights.h"
#include "Result.h"

#include <QString>

namespace attn {

struct WeightFileOptions {
    int layer = 0;      // which layer, for files with GPT-2 style names h.N.attn.*
    int num_heads = 0;  // 0: take it from the file (safetensors metadata, npz or json key)
};

struct LoadedWeights {
    AttentionWeights weights;
    int layer_count = 1;  // layers the file holds (1 unless GPT-2 style)
    QString scheme;       // "nn.MultiheadAttention", "q_proj/k_proj/v_proj", "gpt2" or "json"
};

// Reads attention weights from .safetensors, .npz or .json, in any of the naming schemes of the
// command-line contract, converting F16/BF16/F32/F64 to float32. The file is untrusted: every
// failure is an Error whose message names the file and the reason.
class WeightFile {
public:
    static Result<LoadedWeights> load(const QString& path, const WeightFileOptions& options = {});
};

}  // namespace attn
