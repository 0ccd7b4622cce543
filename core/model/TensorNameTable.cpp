#include "core/model/TensorNameTable.h"

namespace attn {
namespace {

using enum WeightSlot;
using enum StoredAs;
using enum Dim;
constexpr TensorPart kHead = TensorPart::Head;
constexpr TensorPart kBase = TensorPart::Base;

// Each line: {slot, name in the base model or head, how it is stored, rows, cols[, part, optional]},
// in columns (which clang-format would unalign).
// clang-format off
// transformers' GPT2Model (base prefix "transformer.") and GPT2LMHeadModel's lm_head.
// Buffers (h.N.attn.bias, h.N.attn.masked_bias) are not weights and are not listed.
constexpr TensorSpec kGpt2[] = {
    {WordEmbedding,      "wte.weight",                Table,   Vocab,      Hidden},
    {PositionEmbedding,  "wpe.weight",                Table,   Positions,  Hidden},
    {AttnNormWeight,     "h.{L}.ln_1.weight",         Vector,  None,       Hidden},
    {AttnNormBias,       "h.{L}.ln_1.bias",           Vector,  None,       Hidden},
    {QkvWeight,          "h.{L}.attn.c_attn.weight",  Conv1D,  Hidden,     Hidden3},
    {QkvBias,            "h.{L}.attn.c_attn.bias",    Vector,  None,       Hidden3},
    {AttnOutWeight,      "h.{L}.attn.c_proj.weight",  Conv1D,  Hidden,     Hidden},
    {AttnOutBias,        "h.{L}.attn.c_proj.bias",    Vector,  None,       Hidden},
    {MlpNormWeight,      "h.{L}.ln_2.weight",         Vector,  None,       Hidden},
    {MlpNormBias,        "h.{L}.ln_2.bias",           Vector,  None,       Hidden},
    {MlpInWeight,        "h.{L}.mlp.c_fc.weight",     Conv1D,  Hidden,     Inner},
    {MlpInBias,          "h.{L}.mlp.c_fc.bias",       Vector,  None,       Inner},
    {MlpOutWeight,       "h.{L}.mlp.c_proj.weight",   Conv1D,  Inner,      Hidden},
    {MlpOutBias,         "h.{L}.mlp.c_proj.bias",     Vector,  None,       Hidden},
    {FinalNormWeight,    "ln_f.weight",               Vector,  None,       Hidden},
    {FinalNormBias,      "ln_f.bias",                 Vector,  None,       Hidden},
    {HeadDecoderWeight,  "lm_head.weight",            Table,   Vocab,      Hidden,   kHead,  true},
};

// transformers' BertModel (base prefix "bert.", no pooler) and BertForMaskedLM's
// cls.predictions. The pooler and the NSP head (cls.seq_relationship) are not used.
constexpr TensorSpec kBert[] = {
    {WordEmbedding,        "embeddings.word_embeddings.weight",                    Table,   Vocab,       Hidden},
    {PositionEmbedding,    "embeddings.position_embeddings.weight",                Table,   Positions,   Hidden},
    {TokenTypeEmbedding,   "embeddings.token_type_embeddings.weight",              Table,   TokenTypes,  Hidden},
    {EmbeddingNormWeight,  "embeddings.LayerNorm.weight",                          Vector,  None,        Hidden},
    {EmbeddingNormBias,    "embeddings.LayerNorm.bias",                            Vector,  None,        Hidden},
    {QueryWeight,          "encoder.layer.{L}.attention.self.query.weight",        Linear,  Hidden,      Hidden},
    {QueryBias,            "encoder.layer.{L}.attention.self.query.bias",          Vector,  None,        Hidden},
    {KeyWeight,            "encoder.layer.{L}.attention.self.key.weight",          Linear,  Hidden,      Hidden},
    {KeyBias,              "encoder.layer.{L}.attention.self.key.bias",            Vector,  None,        Hidden},
    {ValueWeight,          "encoder.layer.{L}.attention.self.value.weight",        Linear,  Hidden,      Hidden},
    {ValueBias,            "encoder.layer.{L}.attention.self.value.bias",          Vector,  None,        Hidden},
    {AttnOutWeight,        "encoder.layer.{L}.attention.output.dense.weight",      Linear,  Hidden,      Hidden},
    {AttnOutBias,          "encoder.layer.{L}.attention.output.dense.bias",        Vector,  None,        Hidden},
    {AttnNormWeight,       "encoder.layer.{L}.attention.output.LayerNorm.weight",  Vector,  None,        Hidden},
    {AttnNormBias,         "encoder.layer.{L}.attention.output.LayerNorm.bias",    Vector,  None,        Hidden},
    {MlpInWeight,          "encoder.layer.{L}.intermediate.dense.weight",          Linear,  Inner,       Hidden},
    {MlpInBias,            "encoder.layer.{L}.intermediate.dense.bias",            Vector,  None,        Inner},
    {MlpOutWeight,         "encoder.layer.{L}.output.dense.weight",                Linear,  Hidden,      Inner},
    {MlpOutBias,           "encoder.layer.{L}.output.dense.bias",                  Vector,  None,        Hidden},
    {MlpNormWeight,        "encoder.layer.{L}.output.LayerNorm.weight",            Vector,  None,        Hidden},
    {MlpNormBias,          "encoder.layer.{L}.output.LayerNorm.bias",              Vector,  None,        Hidden},
    {HeadTransformWeight,  "cls.predictions.transform.dense.weight",               Linear,  Hidden,      Hidden,  kHead},
    {HeadTransformBias,    "cls.predictions.transform.dense.bias",                 Vector,  None,        Hidden,  kHead},
    {HeadNormWeight,       "cls.predictions.transform.LayerNorm.weight",           Vector,  None,        Hidden,  kHead},
    {HeadNormBias,         "cls.predictions.transform.LayerNorm.bias",             Vector,  None,        Hidden,  kHead},
    {HeadDecoderWeight,    "cls.predictions.decoder.weight",                       Table,   Vocab,       Hidden,  kHead,  true},
    {HeadDecoderBias,      "cls.predictions.bias",                                 Vector,  None,        Vocab,   kHead},
};

// transformers' DistilBertModel (base prefix "distilbert.") and
// DistilBertForMaskedLM's head (vocab_transform, vocab_layer_norm, vocab_projector).
constexpr TensorSpec kDistilBert[] = {
    {WordEmbedding,        "embeddings.word_embeddings.weight",               Table,   Vocab,      Hidden},
    {PositionEmbedding,    "embeddings.position_embeddings.weight",           Table,   Positions,  Hidden,  kBase,  true},
    {EmbeddingNormWeight,  "embeddings.LayerNorm.weight",                     Vector,  None,       Hidden},
    {EmbeddingNormBias,    "embeddings.LayerNorm.bias",                       Vector,  None,       Hidden},
    {QueryWeight,          "transformer.layer.{L}.attention.q_lin.weight",    Linear,  Hidden,     Hidden},
    {QueryBias,            "transformer.layer.{L}.attention.q_lin.bias",      Vector,  None,       Hidden},
    {KeyWeight,            "transformer.layer.{L}.attention.k_lin.weight",    Linear,  Hidden,     Hidden},
    {KeyBias,              "transformer.layer.{L}.attention.k_lin.bias",      Vector,  None,       Hidden},
    {ValueWeight,          "transformer.layer.{L}.attention.v_lin.weight",    Linear,  Hidden,     Hidden},
    {ValueBias,            "transformer.layer.{L}.attention.v_lin.bias",      Vector,  None,       Hidden},
    {AttnOutWeight,        "transformer.layer.{L}.attention.out_lin.weight",  Linear,  Hidden,     Hidden},
    {AttnOutBias,          "transformer.layer.{L}.attention.out_lin.bias",    Vector,  None,       Hidden},
    {AttnNormWeight,       "transformer.layer.{L}.sa_layer_norm.weight",      Vector,  None,       Hidden},
    {AttnNormBias,         "transformer.layer.{L}.sa_layer_norm.bias",        Vector,  None,       Hidden},
    {MlpInWeight,          "transformer.layer.{L}.ffn.lin1.weight",           Linear,  Inner,      Hidden},
    {MlpInBias,            "transformer.layer.{L}.ffn.lin1.bias",             Vector,  None,       Inner},
    {MlpOutWeight,         "transformer.layer.{L}.ffn.lin2.weight",           Linear,  Hidden,     Inner},
    {MlpOutBias,           "transformer.layer.{L}.ffn.lin2.bias",             Vector,  None,       Hidden},
    {MlpNormWeight,        "transformer.layer.{L}.output_layer_norm.weight",  Vector,  None,       Hidden},
    {MlpNormBias,          "transformer.layer.{L}.output_layer_norm.bias",    Vector,  None,       Hidden},
    {HeadTransformWeight,  "vocab_transform.weight",                          Linear,  Hidden,     Hidden,  kHead},
    {HeadTransformBias,    "vocab_transform.bias",                            Vector,  None,       Hidden,  kHead},
    {HeadNormWeight,       "vocab_layer_norm.weight",                         Vector,  None,       Hidden,  kHead},
    {HeadNormBias,         "vocab_layer_norm.bias",                           Vector,  None,       Hidden,  kHead},
    {HeadDecoderWeight,    "vocab_projector.weight",                          Table,   Vocab,      Hidden,  kHead,  true},
    {HeadDecoderBias,      "vocab_projector.bias",                            Vector,  None,       Vocab,   kHead},
};

// clang-format on

std::int64_t size(Dim dim, const ModelConfig& c)
{
    switch (dim) {
        case Dim::None:
            return 1;
        case Dim::Hidden:
            return c.hidden_size;
        case Dim::Hidden3:
            return 3 * std::int64_t(c.hidden_size);
        case Dim::Inner:
            return c.intermediate_size;
        case Dim::Vocab:
            return c.vocab_size;
        case Dim::Positions:
            return c.max_positions;
        case Dim::TokenTypes:
            return c.type_vocab_size;
    }
    return 0;
}

}  // namespace

bool TensorSpec::perLayer() const
{
    return QLatin1String(name).contains(QLatin1String("{L}"));
}

const ArchitectureTensors& tensorTable(ModelArchitecture architecture)
{
    static const ArchitectureTensors gpt2{QStringLiteral("transformer."), kGpt2};
    static const ArchitectureTensors bert{QStringLiteral("bert."), kBert};
    static const ArchitectureTensors distilbert{QStringLiteral("distilbert."), kDistilBert};
    switch (architecture) {
        case ModelArchitecture::Gpt2:
            return gpt2;
        case ModelArchitecture::Bert:
            return bert;
        case ModelArchitecture::DistilBert:
            return distilbert;
    }
    return gpt2;
}

QString tensorName(const TensorSpec& spec, int layer)
{
    QString name = QLatin1String(spec.name);
    name.replace(QLatin1String("{L}"), QString::number(layer));
    return name;
}

Shape expectedShape(const TensorSpec& spec, const ModelConfig& config)
{
    if (spec.rows == Dim::None)
        return {size(spec.cols, config)};
    return {size(spec.rows, config), size(spec.cols, config)};
}

}  // namespace attn
