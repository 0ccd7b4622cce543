#pragma once

#include "core/base/Result.h"
#include "core/weights/LoadedWeights.h"

#include <QString>

#include <optional>

namespace attn {

struct WeightFileOptions {
    int layer = 0;      // which attention layer, when the file holds several (see WeightNaming.h)
    int num_heads = 0;  // 0: take it from the file (safetensors metadata, npz or json key)
};

// Reads attention weights from .safetensors, .npz or .json, in any of the naming schemes of the
// command-line contract, converting F16/BF16/F32/F64 to float32. The file is untrusted: every
// failure is an Error whose message starts with the file's name and gives the reason
// ("model.safetensors: tensor 'in_proj_weight': ..."); nothing is allocated from a size the file
// claims before the claim has been checked against the file.
class WeightFile {
public:
    static Result<LoadedWeights> load(const QString& path, const WeightFileOptions& options = {});

    // The number of heads the file states (safetensors "__metadata__", an npz member or a JSON
    // key "num_heads"), nullopt when it states none; reads only the header, the archive's
    // directory and that member, or (JSON) the object. An error when the file cannot be read
    // that far: the load will say why.
    static Result<std::optional<int>> declaredNumHeads(const QString& path);
};

}  // namespace attn
