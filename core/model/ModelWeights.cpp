#include "core/model/ModelWeights.h"

#include "core/io/FloatConversion.h"
#include "core/model/TensorNameTable.h"
#include "core/ops/Transpose.h"

#include <QtEndian>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace attn {
namespace {

// PreTrainedModel._fix_key: checkpoints converted from TensorFlow name LayerNorm's parameters
// gamma and beta.
QString modernName(const QString& name)
{
    if (name.endsWith(QLatin1String("LayerNorm.gamma")))
        return name.chopped(5) + QStringLiteral("weight");
    if (name.endsWith(QLatin1String("LayerNorm.beta")))
        return name.chopped(4) + QStringLiteral("bias");
    return name;
}

// The file's tensors by the name the table uses: modern spelling, base prefix removed.
class TensorLookup {
public:
    static Result<TensorLookup> build(const ModelFolder& folder, const QString& prefix)
    {
        TensorLookup lookup;
        lookup.m_prefix = prefix;
        for (auto it = folder.tensors().cbegin(); it != folder.tensors().cend(); ++it) {
            QString key = modernName(it.key());
            if (key.startsWith(prefix))
                key.remove(0, prefix.size());
            const auto existing = lookup.m_tensors.constFind(key);
            if (existing != lookup.m_tensors.cend())
                return Error{QStringLiteral("tensors '%1' and '%2' are both the weight '%3'")
                                 .arg(existing->info->name, it.key(), key)};
            lookup.m_tensors.insert(key, it.value());
        }
        return lookup;
    }

    const ModelFolder::Tensor* find(const QString& name) const
    {
        const auto it = m_tensors.constFind(name);
        return it == m_tensors.cend() ? nullptr : &*it;
    }
    const QString& prefix() const { return m_prefix; }

private:
    QString m_prefix;
    QHash<QString, ModelFolder::Tensor> m_tensors;
};

enum class Use {
    InPlaceWhenPossible,  // a weight the forward pass multiplies with as it is
    Copy,                 // copied into a structure of its own (vectors, the engine's weights)
};

// decodeFloats in chunks shared out among the threads: converting F16 or BF16 is most of the time
// a half-precision checkpoint takes to open.
void decodeInParallel(const uchar* bytes, FloatFormat format, Matrix& values)
{
    constexpr std::int64_t kChunk = std::int64_t(1) << 16;
    const std::int64_t count = values.size();
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
    const int size = byteSize(format);
#pragma omp parallel for if (chunks > 1) schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t first = c * kChunk;
        decodeFloats(reinterpret_cast<const char*>(bytes) + first * size, std::min(kChunk, count - first), format,
                     ByteOrder::Little, values.data() + first);
    }
}

// The transpose of an nn.Linear weight, (out, in) as stored, into the (in, out) the products read:
// 64 x 64 blocks that stay in the cache, each transposed 8 x 8 at a time in registers
// (transposeInto), the rows of blocks shared among the threads. Element by
// element, reading down columns thousands of floats long, it was a third of opening a
// Qwen2.5-0.5B-shaped BF16 checkpoint.
Matrix transposed(const Matrix& values)
{
    constexpr Eigen::Index kBlock = 64;
    Matrix out(values.cols(), values.rows());  // (in, out)
    const Eigen::Index row_blocks = (values.rows() + kBlock - 1) / kBlock;
#pragma omp parallel for if (values.size() > (Eigen::Index(1) << 16)) schedule(static)
    for (Eigen::Index block = 0; block < row_blocks; ++block) {
        const Eigen::Index first_row = block * kBlock;
        const Eigen::Index rows = std::min(kBlock, values.rows() - first_row);
        for (Eigen::Index first_col = 0; first_col < values.cols(); first_col += kBlock) {
            const Eigen::Index cols = std::min(kBlock, values.cols() - first_col);
            transposeInto(values.block(first_row, first_col, rows, cols), out.block(first_col, first_row, cols, rows));
        }
    }
    return out;
}

bool isLittleEndianHost()
{
    return QSysInfo::ByteOrder == QSysInfo::LittleEndian;
}

// Reads the tensors of a table for one config, checking each against the shape it must have.
class WeightReader {
public:
    WeightReader(const TensorLookup& lookup, const ModelConfig& config) : m_lookup(lookup), m_config(config) {}

    // The tensor of `spec` at `layer` in the math layout (vectors as one row); an empty matrix
    // for an optional tensor that is absent.
    Result<WeightMatrix> read(const TensorSpec& spec, int layer, Use use) const
    {
        const QString name = tensorName(spec, layer);
        const ModelFolder::Tensor* tensor = m_lookup.find(name);
        const Shape expected = expectedShape(spec, m_config);
        if (!tensor) {
            if (spec.optional)
                return WeightMatrix{};
            const QString prefix = spec.part == TensorPart::Base
                                       ? QStringLiteral(" (with or without the prefix '%1')").arg(m_lookup.prefix())
                                       : QString();
            return Error{
                QStringLiteral("missing tensor '%1'%2, expected shape %3").arg(name, prefix, shapeString(expected))};
        }
        const auto& info = *tensor->info;
        if (!info.format || *info.format == FloatFormat::F64)
            return Error{QStringLiteral("tensor '%1' has dtype %2; weights must be F32, F16 or BF16")
                             .arg(info.name, info.dtype)};
        if (info.shape != expected)
            return Error{QStringLiteral("tensor '%1': expected shape %2, found %3")
                             .arg(info.name, shapeString(expected), shapeString(info.shape))};

        const Eigen::Index rows = spec.rows == Dim::None ? 1 : Eigen::Index(expected[0]);
        const Eigen::Index cols = Eigen::Index(expected.back());
        const uchar* bytes = tensor->file->data(info);
        const bool aligned = reinterpret_cast<std::uintptr_t>(bytes) % alignof(float) == 0;
        if (use == Use::InPlaceWhenPossible && spec.stored != StoredAs::Linear && *info.format == FloatFormat::F32 &&
            aligned && isLittleEndianHost())
            return WeightMatrix::inPlace(info.name, reinterpret_cast<const float*>(bytes), rows, cols);

        Matrix values(rows, cols);  // as stored: (out, in) for an nn.Linear weight
        decodeInParallel(bytes, *info.format, values);
        tensor->file->release(info);
        if (!allFinite(values))
            return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(info.name)};
        if (spec.stored == StoredAs::Linear)
            return WeightMatrix::owned(info.name, transposed(values));  // (in, out)
        return WeightMatrix::owned(info.name, std::move(values));
    }

    Result<RowVector> vector(const TensorSpec& spec, int layer) const
    {
        auto w = read(spec, layer, Use::Copy);
        if (!w)
            return Error{w.error()};
        return RowVector(w->view().row(0));
    }

    Result<Matrix> matrix(const TensorSpec& spec, int layer) const
    {
        auto w = read(spec, layer, Use::Copy);
        if (!w)
            return Error{w.error()};
        return std::move(w).value().takeValues();
    }

private:
    const TensorLookup& m_lookup;
    const ModelConfig& m_config;
};

// transformers' DistilBERT create_sinusoidal_embeddings: the table a DistilBERT checkpoint without
// position embeddings starts from when sinusoidal_pos_embds is set.
//   (positions, dim): even columns sin(pos / 10000^(2 (j / 2) / dim)), odd columns cos(...).
Matrix sinusoidalTable(int positions, int dim)
{
    Matrix table(positions, dim);
    for (int pos = 0; pos < positions; ++pos)
        for (int j = 0; j < dim; ++j) {
            const double angle = pos / std::pow(10000.0, 2.0 * (j / 2) / dim);
            table(pos, j) = float(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return table;
}

// The attention projections of one layer, gathered before they become the engine's weights.
struct AttentionParts {
    Matrix qkv;  // (C, 3C), GPT-2
    RowVector qkv_bias;
    Matrix wq, wk, wv, wo;  // (C, C) each, math layout
    RowVector bq, bk, bv, bo;
};

// Assigns a Result's value, or returns its error from the enclosing function.
#define ATTN_READ(target, call)                   \
    do {                                          \
        auto attn_value = (call);                 \
        if (!attn_value)                          \
            return Error{attn_value.error()};     \
        (target) = std::move(attn_value).value(); \
    } while (false)

Status readBaseTensor(const WeightReader& reader, const TensorSpec& spec, int layer, ModelWeights& weights,
                      AttentionParts& parts)
{
    LayerWeights* l = spec.perLayer() ? &weights.layers[size_t(layer)] : nullptr;
    const Use in_place = Use::InPlaceWhenPossible;
    switch (spec.slot) {
        case WeightSlot::WordEmbedding:
            ATTN_READ(weights.word_embeddings, reader.read(spec, layer, in_place));
            break;
        case WeightSlot::PositionEmbedding:
            ATTN_READ(weights.position_embeddings, reader.read(spec, layer, in_place));
            break;
        case WeightSlot::TokenTypeEmbedding:
            ATTN_READ(weights.token_type_embeddings, reader.read(spec, layer, in_place));
            break;
        case WeightSlot::EmbeddingNormWeight:
            ATTN_READ(weights.embedding_norm_weight, reader.vector(spec, layer));
            break;
        case WeightSlot::EmbeddingNormBias:
            ATTN_READ(weights.embedding_norm_bias, reader.vector(spec, layer));
            break;
        case WeightSlot::AttnNormWeight:
            ATTN_READ(l->attn_norm_weight, reader.vector(spec, layer));
            break;
        case WeightSlot::AttnNormBias:
            ATTN_READ(l->attn_norm_bias, reader.vector(spec, layer));
            break;
        case WeightSlot::QkvWeight:
            ATTN_READ(parts.qkv, reader.matrix(spec, layer));
            break;
        case WeightSlot::QkvBias:
            ATTN_READ(parts.qkv_bias, reader.vector(spec, layer));
            break;
        case WeightSlot::QueryWeight:
            ATTN_READ(parts.wq, reader.matrix(spec, layer));
            break;
        case WeightSlot::QueryBias:
            ATTN_READ(parts.bq, reader.vector(spec, layer));
            break;
        case WeightSlot::KeyWeight:
            ATTN_READ(parts.wk, reader.matrix(spec, layer));
            break;
        case WeightSlot::KeyBias:
            ATTN_READ(parts.bk, reader.vector(spec, layer));
            break;
        case WeightSlot::ValueWeight:
            ATTN_READ(parts.wv, reader.matrix(spec, layer));
            break;
        case WeightSlot::ValueBias:
            ATTN_READ(parts.bv, reader.vector(spec, layer));
            break;
        case WeightSlot::AttnOutWeight:
            ATTN_READ(parts.wo, reader.matrix(spec, layer));
            break;
        case WeightSlot::AttnOutBias:
            ATTN_READ(parts.bo, reader.vector(spec, layer));
            break;
        case WeightSlot::MlpNormWeight:
            ATTN_READ(l->mlp_norm_weight, reader.vector(spec, layer));
            break;
        case WeightSlot::MlpNormBias:
            ATTN_READ(l->mlp_norm_bias, reader.vector(spec, layer));
            break;
        case WeightSlot::MlpGateWeight:
            ATTN_READ(l->mlp_gate, reader.read(spec, layer, in_place));
            l->mlp_gate.moveIntoTiles();  // now, before the next one is converted
            break;
        case WeightSlot::MlpInWeight:
            ATTN_READ(l->mlp_in, reader.read(spec, layer, in_place));
            l->mlp_in.moveIntoTiles();  // now, before the next one is converted
            break;
        case WeightSlot::MlpInBias:
            ATTN_READ(l->mlp_in_bias, reader.vector(spec, layer));
            break;
        case WeightSlot::MlpOutWeight:
            ATTN_READ(l->mlp_out, reader.read(spec, layer, in_place));
            l->mlp_out.moveIntoTiles();  // now, before the next one is converted
            break;
        case WeightSlot::MlpOutBias:
            ATTN_READ(l->mlp_out_bias, reader.vector(spec, layer));
            break;
        case WeightSlot::FinalNormWeight:
            ATTN_READ(weights.final_norm_weight, reader.vector(spec, layer));
            break;
        case WeightSlot::FinalNormBias:
            ATTN_READ(weights.final_norm_bias, reader.vector(spec, layer));
            break;
        default:
            break;  // head tensors: readHead
    }
    return {};
}

Status readHeadTensor(const WeightReader& reader, const TensorSpec& spec, PredictionHeadWeights& head)
{
    switch (spec.slot) {
        case WeightSlot::HeadTransformWeight:
            ATTN_READ(head.transform, reader.read(spec, 0, Use::InPlaceWhenPossible));
            break;
        case WeightSlot::HeadTransformBias:
            ATTN_READ(head.transform_bias, reader.vector(spec, 0));
            break;
        case WeightSlot::HeadNormWeight:
            ATTN_READ(head.norm_weight, reader.vector(spec, 0));
            break;
        case WeightSlot::HeadNormBias:
            ATTN_READ(head.norm_bias, reader.vector(spec, 0));
            break;
        case WeightSlot::HeadDecoderWeight:
            ATTN_READ(head.decoder, reader.read(spec, 0, Use::InPlaceWhenPossible));
            break;
        case WeightSlot::HeadDecoderBias:
            ATTN_READ(head.decoder_bias, reader.vector(spec, 0));
            break;
        default:
            break;
    }
    return {};
}

#undef ATTN_READ

// GPT-NeoX's query_key_value holds each head's q, k, v side by side: output column
// h * 3D + s * D + j (s = 0, 1, 2 for q, k, v) is column h * D + j of Wq, Wk or Wv.
//   qkv (C, 3C) math layout, qkv_bias (3C) or empty.
void splitPerHead(int num_heads, int head_dim, AttentionParts& parts)
{
    const Eigen::Index c = parts.qkv.rows();
    Matrix* targets[] = {&parts.wq, &parts.wk, &parts.wv};
    RowVector* biases[] = {&parts.bq, &parts.bk, &parts.bv};
    for (int s = 0; s < 3; ++s) {
        targets[s]->resize(c, Eigen::Index(num_heads) * head_dim);
        if (parts.qkv_bias.size() > 0)
            biases[s]->resize(Eigen::Index(num_heads) * head_dim);
        for (int h = 0; h < num_heads; ++h) {
            const Eigen::Index from = Eigen::Index(h) * 3 * head_dim + Eigen::Index(s) * head_dim;
            targets[s]->middleCols(Eigen::Index(h) * head_dim, head_dim) = parts.qkv.middleCols(from, head_dim);
            if (parts.qkv_bias.size() > 0)
                biases[s]->segment(Eigen::Index(h) * head_dim, head_dim) = parts.qkv_bias.segment(from, head_dim);
        }
    }
    parts.qkv.resize(0, 0);
}

Result<AttentionWeights> engineWeights(const ModelConfig& config, AttentionParts& parts)
{
    if (parts.qkv.size() > 0 && config.architecture == ModelArchitecture::GptNeox)
        splitPerHead(config.num_heads, config.headDim(), parts);  // interleaved per head: no fused layout
    if (parts.qkv.size() > 0)  // GPT-2's c_attn is [Wq | Wk | Wv] already: the engine's in_proj, moved in
        return AttentionWeights::fromFused(config.num_heads, config.num_kv_heads, std::move(parts.qkv),
                                           std::move(parts.qkv_bias), std::move(parts.wo), std::move(parts.bo));
    return AttentionWeights::fromParts(config.num_heads, config.num_kv_heads, parts.wq, parts.wk, parts.wv, parts.bq,
                                       parts.bk, parts.bv, std::move(parts.wo), std::move(parts.bo));
}

}  // namespace

Result<ModelWeights> ModelWeights::load(const ModelFolder& folder)
{
    const ModelConfig& config = folder.config();
    const ArchitectureTensors& table = tensorTable(config.architecture);
    auto lookup = TensorLookup::build(folder, table.prefix);
    if (!lookup)
        return Error{lookup.error()};
    const WeightReader reader(*lookup, config);

    ModelWeights weights;
    weights.layers.resize(size_t(config.num_layers));
    AttentionParts model_parts;  // unused: no attention tensor is outside the layers
    for (const TensorSpec& spec : table.tensors) {
        if (spec.part != TensorPart::Base || spec.perLayer() || !spec.isPartOf(config))
            continue;
        if (Status s = readBaseTensor(reader, spec, 0, weights, model_parts); !s)
            return Error{s.error()};
    }
    for (int layer = 0; layer < config.num_layers; ++layer) {
        AttentionParts parts;
        for (const TensorSpec& spec : table.tensors) {
            if (spec.part != TensorPart::Base || !spec.perLayer() || !spec.isPartOf(config))
                continue;
            if (Status s = readBaseTensor(reader, spec, layer, weights, parts); !s)
                return Error{s.error()};
        }
        auto attention = engineWeights(config, parts);
        if (!attention)
            return Error{QStringLiteral("layer %1: %2").arg(layer).arg(attention.error())};
        weights.layers[size_t(layer)].attention = std::move(attention).value();
    }

    if (weights.position_embeddings.isEmpty() && !config.hasRotaryPositions()) {  // only DistilBERT's may be absent
        if (!config.sinusoidal_positions)
            return Error{QStringLiteral("missing tensor 'embeddings.position_embeddings.weight' (with or without the "
                                        "prefix '%1'), expected shape (%2, %3)")
                             .arg(table.prefix)
                             .arg(config.max_positions)
                             .arg(config.hidden_size)};
        // Sized by config.json alone (no tensor in the file bounds it): refused when absurd.
        constexpr std::int64_t kMaxTable = std::int64_t(1) << 28;  // floats: 1 GiB
        if (std::int64_t(config.max_positions) * config.hidden_size > kMaxTable)
            return Error{QStringLiteral("a sinusoidal position table of %1 x %2 is too large (limit %3 values)")
                             .arg(config.max_positions)
                             .arg(config.hidden_size)
                             .arg(kMaxTable)};
        weights.position_embeddings = WeightMatrix::owned(QStringLiteral("sinusoidal positions"),
                                                          sinusoidalTable(config.max_positions, config.hidden_size));
    }

    // The head is optional: without it (or with a broken one) there are no predictions.
    PredictionHeadWeights head;
    bool head_ok = true;
    for (const TensorSpec& spec : table.tensors) {
        if (spec.part != TensorPart::Head)
            continue;
        if (spec.slot == WeightSlot::HeadDecoderWeight && config.tie_word_embeddings)
            continue;  // _tie_or_clone_weights: a tied head's output matrix is the word embeddings
        if (Status s = readHeadTensor(reader, spec, head); !s) {
            weights.head_missing = s.error();
            head_ok = false;
            break;
        }
    }
    if (head_ok)
        weights.head = std::move(head);
    return weights;
}

void ModelWeights::moveMlpsIntoTiles()
{
    for (LayerWeights& layer : layers)
        for (WeightMatrix* w : {&layer.mlp_gate, &layer.mlp_in, &layer.mlp_out})
            w->moveIntoTiles();
}

}  // namespace attn
