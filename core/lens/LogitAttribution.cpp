#include "core/lens/LogitAttribution.h"

#include "core/lens/ResidualRows.h"
#include "core/model/FeedForward.h"
#include "core/model/RmsNorm.h"
#include "core/ops/LayerNorm.h"

#include <omp.h>

#include <cmath>
#include <numeric>

namespace attn {
namespace {

using VectorD = Eigen::Matrix<double, 1, Eigen::Dynamic>;

// The embeddings of the token at `position`: word[id] (+ pos[position] with learned positions).   -> (1, C)
RowVector embedding(const ModelWeights& weights, const ModelRun& run, int position)
{
    RowVector x = weights.word_embeddings.view().row(run.token_ids[size_t(position)]);
    if (!weights.position_embeddings.isEmpty())
        x += weights.position_embeddings.view().row(position);
    return x;
}

// The MLP's input norm of a block, one row.
void mlpNorm(const ModelConfig& config, const LayerWeights& w, const RowVector& x, Matrix& out)
{
    out.resize(1, x.size());
    if (config.isLlamaFamily())
        rmsNorm(x, w.mlp_norm_weight, float(config.layer_norm_eps), out);
    else
        layerNorm(x, w.mlp_norm_weight, w.mlp_norm_bias, float(config.layer_norm_eps), out);
}

// While it lives, the calling thread's parallel regions run on that thread alone. The attribution
// follows one row through the blocks: each MLP row (GPT-2 small: 2.4 M multiply-adds) is just
// above the engine's parallel threshold, and a region per product costs more than it saves when
// the other thread of the team waits for a core.
class OneThreadTeams {
public:
    OneThreadTeams() : m_threads(omp_get_max_threads()) { omp_set_num_threads(1); }
    ~OneThreadTeams() { omp_set_num_threads(m_threads); }
    OneThreadTeams(const OneThreadTeams&) = delete;
    OneThreadTeams& operator=(const OneThreadTeams&) = delete;

private:
    int m_threads;
};

// The z a pass with interventions gave head (layer, head) in place of its own, or null.   (T, D)
const Matrix* replacedZ(const ModelRun& run, int layer, int head)
{
    for (const ReplacedHead& r : run.replaced_heads)
        if (r.layer == layer && r.head == head)
            return &r.z;
    return nullptr;
}

}  // namespace

double AttributionResult::sum() const
{
    return embed + std::accumulate(heads.begin(), heads.end(), 0.0) +
           std::accumulate(attn_bias.begin(), attn_bias.end(), 0.0) + std::accumulate(mlp.begin(), mlp.end(), 0.0) +
           final_bias;
}

Result<AttributionResult> LogitAttribution::compute(const ModelConfig& config, const ModelWeights& weights,
                                                    const ModelRun& run, int position, const MetricTokens& tokens)
{
    if (!ResidualRows::preNorm(config))
        return Error{QStringLiteral("direct logit attribution needs a pre-norm model (GPT-2, Llama family, Qwen2, "
                                    "Mistral, GPT-NeoX); %1 normalises after each block")
                         .arg(config.model_type)};
    if (!weights.head)
        return Error{QStringLiteral("the model has no prediction head (%1)").arg(weights.head_missing)};
    if (int(run.layer_inputs.size()) != config.num_layers)
        return Error{QStringLiteral("the forward pass did not keep every layer's attention input")};
    auto logit = LogitMetric::value(config, weights, run, position, tokens);
    if (!logit)
        return Error{logit.error()};

    const int L = config.num_layers;
    const int H = config.num_heads;
    const int D = config.headDim();
    const int C = config.hidden_size;
    const int group = H / config.num_kv_heads;
    // Rows of the unnormed parts: embed, L x H heads, L attention biases, L MLPs.
    Matrix parts = Matrix::Zero(1 + L * H + 2 * L, C);
    const auto headRow = [&](int l, int h) { return 1 + l * H + h; };
    const auto biasRow = [&](int l) { return 1 + L * H + l; };
    const auto mlpRow = [&](int l) { return 1 + L * H + L + l; };

    const OneThreadTeams one_thread;
    RowVector residual = embedding(weights, run, position);  // (C): the residual stream at P
    parts.row(0) = residual;
    Matrix mlp_in;
    for (int l = 0; l < L; ++l) {
        const LayerWeights& w = weights.layers[size_t(l)];
        const AttentionWeights& a = w.attention;
        const Matrix& x = run.layer_inputs[size_t(l)];  // (T, C): the attention's input
        const int keys = run.attention.rowLength(position);
        RowVector attention_out = RowVector::Zero(C);
        for (int h = 0; h < H; ++h) {
            const int g = h / group;
            const Eigen::Map<const RowVector> weights_row(run.attention.row(l, h, position), keys);  // (keys)
            const RowVector mixed = weights_row * x.topRows(keys);                                   // (C)
            RowVector z = mixed * a.wv().middleCols(g * D, D);                                       // (D)
            if (a.hasInputBias())
                z += weights_row.sum() * a.in_bias.segment(a.dModel() + a.kvDim() + g * D, D);
            if (const Matrix* replaced = replacedZ(run, l, h))
                z = replaced->row(position);
            const RowVector out = z * a.out_proj.middleRows(h * D, D);  // (C)
            parts.row(headRow(l, h)) = out;
            attention_out += out;
        }
        if (a.out_bias.size() > 0) {
            parts.row(biasRow(l)) = a.out_bias;
            attention_out += a.out_bias;
        }
        if (config.parallel_residual && config.architecture == ModelArchitecture::GptNeox) {
            mlpNorm(config, w, residual, mlp_in);  // x + Attn(LN_1(x)) + MLP(LN_2(x))
            residual += attention_out;
        } else {
            residual += attention_out;
            mlpNorm(config, w, residual, mlp_in);
        }
        auto mlp = config.isLlamaFamily() ? gatedFeedForward(config, w, mlp_in) : feedForward(config, w, mlp_in);
        if (!mlp)
            return Error{mlp.error()};
        parts.row(mlpRow(l)) = mlp->row(0);
        residual += mlp->row(0);
    }

    // u = W_U[target] - W_U[foil], the final norm's weight folded in: w = gamma * u.
    const auto vocab = weights.decoder().view();  // (V, C)
    VectorD u = vocab.row(tokens.target).cast<double>();
    if (tokens.foil)
        u -= vocab.row(*tokens.foil).cast<double>();
    const VectorD gamma_u = weights.final_norm_weight.cast<double>().cwiseProduct(u);
    const VectorD r = residual.cast<double>();
    const double eps = config.layer_norm_eps;
    const bool rms = config.isLlamaFamily();
    const double mean = r.mean();
    const double scale =
        rms ? std::sqrt(r.squaredNorm() / C + eps) : std::sqrt((r.array() - mean).square().mean() + eps);
    const double gamma_u_sum = gamma_u.sum();
    const auto number = [&](int row) {
        const VectorD part = parts.row(row).cast<double>();
        return rms ? part.dot(gamma_u) / scale : (part.dot(gamma_u) - part.mean() * gamma_u_sum) / scale;
    };

    AttributionResult result;
    result.position = position;
    result.tokens = tokens;
    result.logit = *logit;
    result.num_layers = L;
    result.num_heads = H;
    result.embed = number(0);
    result.heads.resize(size_t(L) * size_t(H));
    result.attn_bias.resize(size_t(L));
    result.mlp.resize(size_t(L));
    for (int l = 0; l < L; ++l) {
        for (int h = 0; h < H; ++h)
            result.heads[size_t(l) * size_t(H) + size_t(h)] = number(headRow(l, h));
        result.attn_bias[size_t(l)] = number(biasRow(l));
        result.mlp[size_t(l)] = number(mlpRow(l));
    }
    if (!rms)
        result.final_bias = weights.final_norm_bias.cast<double>().dot(u);
    if (weights.head->decoder_bias.size() > 0) {
        result.final_bias += double(weights.head->decoder_bias(tokens.target));
        if (tokens.foil)
            result.final_bias -= double(weights.head->decoder_bias(*tokens.foil));
    }
    return result;
}

}  // namespace attn
