#include "core/model/FeedForward.h"

namespace attn {

Error notFinite(const WeightMatrix& w)
{
    return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(w.name())};
}

Result<Matrix> feedForward(const ModelConfig& config, const LayerWeights& w, const Matrix& h)
{
    Matrix inner(h.rows(), config.intermediate_size);  // (T, I)
    if (!multiply(h, w.mlp_in, w.mlp_in_bias, inner))
        return notFinite(w.mlp_in);
    applyActivation(config.activation, inner);
    Matrix out(h.rows(), config.hidden_size);  // (T, C)
    if (!multiply(inner, w.mlp_out, w.mlp_out_bias, out))
        return notFinite(w.mlp_out);
    return out;
}

// LlamaMLP: down_proj(act_fn(gate_proj(h)) * up_proj(h)).   h (T, C) -> (T, I) -> (T, C)
Result<Matrix> gatedFeedForward(const ModelConfig& config, const LayerWeights& w, const Matrix& h)
{
    Matrix gate(h.rows(), config.intermediate_size);  // (T, I)
    if (!multiply(h, w.mlp_gate, {}, gate))
        return notFinite(w.mlp_gate);
    Matrix up(h.rows(), config.intermediate_size);  // (T, I)
    if (!multiply(h, w.mlp_in, {}, up))
        return notFinite(w.mlp_in);
    applyActivation(config.activation, gate);
    gate.array() *= up.array();
    Matrix out(h.rows(), config.hidden_size);  // (T, C)
    if (!multiply(gate, w.mlp_out, {}, out))
        return notFinite(w.mlp_out);
    return out;
}

}  // namespace attn
