#include "tests/support/RandomModel.h"

#include "core/base/SplitMix64.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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
    // Every value rounded to a bfloat16 (ties to even), as the hub ships these models (BF16 checkpoints).
    const auto bf16 = [](auto values) {
        return decltype(values)(values.unaryExpr([](float v) { return float(Eigen::bfloat16(v)); }));
    };
    const auto matrix = [&](int rows, int cols) { return bf16(uniform(rows, cols, kStd, rng)); };
    const auto vector = [&](int size, double centre, double spread) { return bf16(around(size, centre, spread, rng)); };
    const auto owned = [&](const char* name, int rows, int cols) {
        return WeightMatrix::owned(QLatin1String(name), matrix(rows, cols));
    };
    const auto bias = [&](int size) { return c.qkv_bias ? vector(size, 0, 0.02) : RowVector(); };
    w.word_embeddings = owned("word embeddings", c.vocab_size, width);
    for (int l = 0; l < c.num_layers; ++l) {
        LayerWeights layer;
        const Matrix wq = matrix(width, width);
        const Matrix wk = matrix(width, kv);
        const Matrix wv = matrix(width, kv);
        const RowVector bq = bias(width), bk = bias(kv), bv = bias(kv);
        layer.attention = AttentionWeights::fromParts(c.num_heads, c.num_kv_heads, wq, wk, wv, bq, bk, bv,
                                                      matrix(width, width), RowVector())
                              .value();
        layer.attn_norm_weight = vector(width, 1.0, 0.1);
        layer.mlp_gate = owned("mlp gate", width, inner);
        layer.mlp_in = owned("mlp up", width, inner);
        layer.mlp_out = owned("mlp down", inner, width);
        layer.mlp_norm_weight = vector(width, 1.0, 0.1);
        w.layers.push_back(std::move(layer));
    }
    w.final_norm_weight = vector(width, 1.0, 0.1);
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
        w.head = PredictionHeadWeights{};  // GPT-2's LM head: tied to the word embeddings
    }
    return std::make_unique<TransformerModel>(c, std::move(w));
}

bool writeGpt2Folder(const QString& dir, const ModelConfig& c, std::uint64_t seed)
{
    const QJsonObject config{{"model_type", "gpt2"},
                             {"n_layer", c.num_layers},
                             {"n_head", c.num_heads},
                             {"n_embd", c.hidden_size},
                             {"n_positions", c.max_positions},
                             {"vocab_size", c.vocab_size},
                             {"layer_norm_epsilon", c.layer_norm_eps},
                             {"activation_function", "gelu_new"}};
    QFile config_file(dir + QStringLiteral("/config.json"));
    if (!config_file.open(QIODevice::WriteOnly) || config_file.write(QJsonDocument(config).toJson()) < 0)
        return false;
    config_file.close();

    // The tensors of modeling_gpt2.py's state dict, in its order; vectors have one dimension.
    struct Entry {
        QString name;
        std::vector<qint64> shape;
        double centre;  // LayerNorm weights near 1, everything else near 0
    };
    const qint64 e = c.hidden_size;
    std::vector<Entry> tensors = {{"wte.weight", {c.vocab_size, e}, 0}, {"wpe.weight", {c.max_positions, e}, 0}};
    for (int l = 0; l < c.num_layers; ++l) {
        const QString h = QStringLiteral("h.%1.").arg(l);
        for (const Entry& t : std::vector<Entry>{{"ln_1.weight", {e}, 1},
                                                 {"ln_1.bias", {e}, 0},
                                                 {"attn.c_attn.weight", {e, 3 * e}, 0},
                                                 {"attn.c_attn.bias", {3 * e}, 0},
                                                 {"attn.c_proj.weight", {e, e}, 0},
                                                 {"attn.c_proj.bias", {e}, 0},
                                                 {"ln_2.weight", {e}, 1},
                                                 {"ln_2.bias", {e}, 0},
                                                 {"mlp.c_fc.weight", {e, 4 * e}, 0},
                                                 {"mlp.c_fc.bias", {4 * e}, 0},
                                                 {"mlp.c_proj.weight", {4 * e, e}, 0},
                                                 {"mlp.c_proj.bias", {e}, 0}})
            tensors.push_back({h + t.name, t.shape, t.centre});
    }
    tensors.push_back({"ln_f.weight", {e}, 1});
    tensors.push_back({"ln_f.bias", {e}, 0});

    QJsonObject header;
    qint64 offset = 0;
    for (const Entry& t : tensors) {
        qint64 count = 1;
        QJsonArray shape;
        for (qint64 d : t.shape) {
            count *= d;
            shape.append(d);
        }
        header.insert(t.name,
                      QJsonObject{{"dtype", "F32"},
                                  {"shape", shape},
                                  {"data_offsets", QJsonArray{offset, offset + count * qint64(sizeof(float))}}});
        offset += count * qint64(sizeof(float));
    }
    QByteArray header_bytes = QJsonDocument(header).toJson(QJsonDocument::Compact);
    header_bytes.append(QByteArray((8 - header_bytes.size() % 8) % 8, ' '));

    QFile file(dir + QStringLiteral("/model.safetensors"));
    if (!file.open(QIODevice::WriteOnly))
        return false;
    const quint64 length = quint64(header_bytes.size());
    char length_bytes[8];
    for (int i = 0; i < 8; ++i)
        length_bytes[i] = char((length >> (8 * i)) & 0xff);
    if (file.write(length_bytes, 8) != 8 || file.write(header_bytes) != header_bytes.size())
        return false;
    SplitMix64 rng(seed);
    for (const Entry& t : tensors) {
        qint64 count = 1;
        for (qint64 d : t.shape)
            count *= d;
        constexpr qint64 kChunk = 1 << 20;  // floats per write
        for (qint64 first = 0; first < count; first += kChunk) {
            const qint64 size = std::min(kChunk, count - first);
            const RowVector chunk =
                t.centre != 0 ? around(size, t.centre, 0.1, rng) : RowVector(uniform(1, size, kStd, rng));
            const qint64 bytes = chunk.size() * qint64(sizeof(float));
            if (file.write(reinterpret_cast<const char*>(chunk.data()), bytes) != bytes)  // little-endian host
                return false;
        }
    }
    return file.flush();
}

}  // namespace attn::testing
