#include "core/lens/ResidualRows.h"

#include "core/model/RmsNorm.h"
#include "core/ops/LayerNorm.h"

namespace attn {

bool ResidualRows::preNorm(const ModelConfig& config)
{
    return config.architecture != ModelArchitecture::Bert && config.architecture != ModelArchitecture::DistilBert;
}

Status ResidualRows::check(const ModelConfig& config, const ModelRun& run)
{
    const size_t layers = size_t(config.num_layers);
    const bool kept = preNorm(config) ? run.residual_stream.size() == layers : run.layer_inputs.size() == layers;
    if (!kept)
        return Error{QStringLiteral("the forward pass did not keep the hidden states of every layer")};
    return {};
}

const Matrix& ResidualRows::hiddenState(const ModelConfig& config, const ModelRun& run, int l)
{
    if (l == config.num_layers)
        return run.last_hidden_state;
    return preNorm(config) ? run.residual_stream[size_t(l)] : run.layer_inputs[size_t(l)];
}

void ResidualRows::finalNorm(const ModelConfig& config, const ModelWeights& weights, const ConstMatrixRef& x,
                             MatrixRef out)
{
    const float eps = float(config.layer_norm_eps);
    if (config.isLlamaFamily())
        rmsNorm(x, weights.final_norm_weight, eps, out);
    else
        layerNorm(x, weights.final_norm_weight, weights.final_norm_bias, eps, out);
}

void ResidualRows::lensRows(const ModelConfig& config, const ModelWeights& weights, const ModelRun& run, int l,
                            int first, int count, MatrixRef out)
{
    const auto rows = hiddenState(config, run, l).middleRows(first, count);
    if (preNorm(config) && l < config.num_layers)
        finalNorm(config, weights, rows, out);
    else
        out = rows;
}

}  // namespace attn
