#include "tests/support/RandomModel.h"

#include "core/base/SplitMix64.h"

#include <cmath>

namespace attn::testing {
namespace {

constexpr double kStd = 0.02;

Matrix uniform(Eigen::Index rows, Eigen::Index cols, double std, SplitMix64& rng)
{
    const double bound = std * std::sqrt(3.0);  // U(-b, b) has std b / sqrt(3)
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = float(rng.uniform(-bound, bound));
    return m;
}

RowVector around(Eigen::Index size, double centre, double spread, SplitMix64& rng)
{
    RowVector v(size);
    for (Eigen::Index i = 0; i < size; ++i)
        v[i] = float(centre + rng.uniform(-spread, spread));
    return v;
}

WeightMatrix weight(const char* name, Eigen::Index rows, Eigen::Index cols, SplitMix64& rng)
{
    return WeightMatrix::owned(QLatin1String(name), uniform(rows, cols, kStd, rng));
}

}  // namespace

ModelConfig gpt2SmallConfig()
{
    ModelConfig c;
    c.architecture = ModelArchitecture::Gpt2;
    c.model_type = QStringLiteral("gpt2");
    c.num_layers = 12;
    c.num_heads = c.num_kv_heads = 12;
    c.hidden_size = 768;
    c.intermediate_size = 3072;
    c.vocab_size = 50257;
    c.max_positions = 1024;
    c.layer_norm_eps = 1e-5;
    c.activation = Activation::GeluTanh;
    c.causal = true;
    return c;
}

ModelConfig bertBaseConfig()
{
    ModelConfig c;
    c.architecture = ModelArchitecture::Bert;
    c.model_type = QStringLiteral("bert");
    c.num_layers = 12;
    c.num_heads = c.num_kv_heads = 12;
    c.hidden_size = 768;
    c.intermediate_size = 3072;
    c.vocab_size = 30522;
    c.max_positions = 512;
    c.type_vocab_size = 2;
    c.layer_norm_eps = 1e-12;
    c.activation = Activation::Gelu;
    return c;
}

ModelConfig smollm2Config()
{
    ModelConfig c;
    c.architecture = ModelArchitecture::Llama;
    c.model_type = QStringLiteral("llama");
    c.num_layers = 30;
    c.num_heads = 9;
    c.num_kv_heads = 3;
    c.hidden_size = 576;
    c.intermediate_size = 1536;
    c.vocab_size = 49152;
    c.max_positions = 8192;
    c.layer_norm_eps = 1e-5;
    c.activation = Activation::Silu;
    c.causal = true;
    c.rotary_dim = 64;
    c.rope_theta = 100000;
    return c;
}

ModelConfig qwen2HalfBConfig()
{
    ModelConfig c;
    c.architecture = ModelArchitecture::Qwen2;
    c.model_type = QStringLiteral("qwen2");
    c.num_layers = 24;
    c.num_heads = 14;
    c.num_kv_heads = 2;
    c.hidden_size = 896;
    c.intermediate_size = 4864;
    c.vocab_size = 151936;
    c.max_positions = 32768;
    c.layer_norm_eps = 1e-6;
    c.activation = Activation::Silu;
    c.causal = true;
    c.rotary_dim = 64;
    c.rope_theta = 1000000;
    c.qkv_bias = true;
    return c;
}

namespace {

// The Llama family: RMSNorm weights, [Wq | Wk | Wv] with kv_dim-wide K and V, the SwiGLU MLP.
std::unique_ptr<TransformerModel> randomLlamaFamily(const ModelConfig& c, SplitMix64& rng)
{
    const int width = c.hidden_size;
    const int inner = c.intermediate_size;
    const int kv = c.kvDim();
    ModelWeights w;
    w.word_embeddings = weight("word embeddings", c.vocab_size, width, rng);
    const auto bias = [&](int size) { return c.qkv_bias ? around(size, 0, 0.02, rng) : RowVector(); };
    for (int l = 0; l < c.num_layers; ++l) {
        LayerWeights layer;
        const Matrix wq = uniform(width, width, kStd, rng);
        const Matrix wk = uniform(width, kv, kStd, rng);
        const Matrix wv = uniform(width, kv, kStd, rng);
        const RowVector bq = bias(width), bk = bias(kv), bv = bias(kv);
        layer.attention = AttentionWeights::fromParts(c.num_heads, c.num_kv_heads, wq, wk, wv, bq, bk, bv,
                                                      uniform(width, width, kStd, rng), RowVector())
                              .value();
        layer.attn_norm_weight = around(width, 1.0, 0.1, rng);
        layer.mlp_gate = weight("mlp gate", width, inner, rng);
        layer.mlp_in = weight("mlp up", width, inner, rng);
        layer.mlp_out = weight("mlp down", inner, width, rng);
        layer.mlp_norm_weight = around(width, 1.0, 0.1, rng);
        w.layers.push_back(std::move(layer));
    }
    w.final_norm_weight = around(width, 1.0, 0.1, rng);
    return std::make_unique<TransformerModel>(c, std::move(w));
}

}  // namespace

std::unique_ptr<TransformerModel> randomModel(const ModelConfig& c, std::uint64_t seed)
{
    if (c.isLlamaFamily()) {
        SplitMix64 rng(seed);
        return randomLlamaFamily(c, rng);
    }
    SplitMix64 rng(seed);
    const int width = c.hidden_size;
    const int inner = c.intermediate_size;
    ModelWeights w;
    w.word_embeddings = weight("word embeddings", c.vocab_size, width, rng);
    w.position_embeddings = weight("position embeddings", c.max_positions, width, rng);
    if (c.type_vocab_size > 0)
        w.token_type_embeddings = weight("token types", c.type_vocab_size, width, rng);
    const bool pre_norm = c.architecture == ModelArchitecture::Gpt2;
    if (!pre_norm) {
        w.embedding_norm_weight = around(width, 1.0, 0.1, rng);
        w.embedding_norm_bias = around(width, 0.0, 0.05, rng);
    }
    for (int l = 0; l < c.num_layers; ++l) {
        LayerWeights layer;
        auto attention = AttentionWeights::fromParts(
            c.num_heads, uniform(width, width, kStd, rng), uniform(width, width, kStd, rng),
            uniform(width, width, kStd, rng), around(width, 0, 0.02, rng), around(width, 0, 0.02, rng),
            around(width, 0, 0.02, rng), uniform(width, width, kStd, rng), around(width, 0, 0.02, rng));
        layer.attention = std::move(attention).value();
        layer.attn_norm_weight = around(width, 1.0, 0.1, rng);
        layer.attn_norm_bias = around(width, 0.0, 0.05, rng);
        layer.mlp_in = weight("mlp in", width, inner, rng);
        layer.mlp_in_bias = around(inner, 0, 0.02, rng);
        layer.mlp_out = weight("mlp out", inner, width, rng);
        layer.mlp_out_bias = around(width, 0, 0.02, rng);
        layer.mlp_norm_weight = around(width, 1.0, 0.1, rng);
        layer.mlp_norm_bias = around(width, 0.0, 0.05, rng);
        w.layers.push_back(std::move(layer));
    }
    if (pre_norm) {
        w.final_norm_weight = around(width, 1.0, 0.1, rng);
        w.final_norm_bias = around(width, 0.0, 0.05, rng);
    }
    return std::make_unique<TransformerModel>(c, std::move(w));
}

}  // namespace attn::testing
