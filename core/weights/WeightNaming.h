#pragma once

// The tensor names of the command-line contract, and how each maps to math layout
// (Q = X Wq + bq, Wq of shape (input_dim, d_model)):
//   1. PyTorch nn.MultiheadAttention: PREFIX + "in_proj_weight" (3E, input_dim) = [Wq; Wk; Wv]
//      in torch Linear layout (out, in), or "q_proj_weight"/"k_proj_weight"/"v_proj_weight"
//      (E, input_dim) each; "in_proj_bias" (3E); "out_proj.weight" (E_out, E), "out_proj.bias".
//      Transposed: in_proj = in_proj_weight^T. ("bias_k"/"bias_v" of add_bias_kv: refused.)
//   2. Separate projections: PREFIX + "q_proj.weight", "k_proj.weight", "v_proj.weight"
//      (d_model, input_dim), "out_proj.weight" or "o_proj.weight" (d_out, d_model), optional
//      ".bias" of each (a missing q/k/v bias is zero when another is present). Transposed.
//   3. GPT-2 Conv1D, already (in, out): [transformer.]h.L.attn.c_attn.weight (E, 3E),
//      c_attn.bias (3E), c_proj.weight (E, E_out), c_proj.bias (E_out). Not transposed.
// PREFIX is any common prefix ending in '.' ("model.layers.0.self_attn.") or none. Every prefix
// that holds one of the schemes is an attention layer; layers are numbered in natural name order
// (layers.2 before layers.10), which for GPT-2 is the L of h.L. Everything else in the file
// (embeddings, norms, MLPs, GPT-2's attn.bias / attn.masked_bias buffers, scalars) is ignored.
// The output projection is optional in every scheme: without it the output is the concatenation.

#include "core/io/TensorSource.h"
#include "core/weights/WeightFile.h"

#include <cstdint>
#include <vector>

namespace attn {

class WeightNaming {
public:
    // The limits of AttentionWeights::checkDimensions (input_dim, d_model and the output dimension
    // at most kMaxDimension; input_dim * 3 * d_model + d_model * max(d_model, output_dim) at most
    // kMaxParameters), applied to the shapes in the file before any tensor is read.
    static constexpr std::int64_t kMaxDimension = 65536;
    static constexpr std::int64_t kMaxParameters = std::int64_t(1) << 30;

    enum class Scheme { MultiheadAttention, SeparateProjections, Gpt2 };
    struct Layer {
        QString prefix;  // e.g. "h.3.attn." or "" for a bare nn.MultiheadAttention state dict
        Scheme scheme;
    };

    static QString schemeName(Scheme scheme);  // the LoadedWeights::scheme strings
    // The attention layers among `names`, in natural order of their prefixes.
    static std::vector<Layer> findLayers(const QStringList& names);
    // "layers.2" < "layers.10": digit runs compare as numbers.
    static bool naturalLess(const QString& a, const QString& b);

    // Reads layer options.layer of the source: first every shape it needs (from the file's
    // headers) against the scheme and the limits above, then the values, checked for NaN and Inf;
    // resolves num_heads (options.num_heads, else what the file states) and validates the result.
    // Messages are reasons without the file name.
    static Result<LoadedWeights> build(TensorSource& source, const WeightFileOptions& options);
};

}  // namespace attn
