#include "core/model/TensorNameTable.h"

namespace attn {
namespace {

using enum WeightSlot;
using enum StoredAs;
using enum Dim;
constexpr TensorPart kHead = TensorPart::Head;
constexpr TensorPart kBase = TensorPart::Base;
constexpr Presence kWithQkvBias = Presence::WithQkvBias;
constexpr Presence kWithOutBias = Presence::WithOutBias;

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

// transformers' LlamaModel, Qwen2Model, MistralModel (base prefix "model.") and the lm_head of
// *ForCausalLM (read only when tie_word_embeddings is false). Buffers (rotary_emb.inv_freq) are
// not weights and are not listed.
constexpr TensorSpec kLlama[] = {
    {WordEmbedding,      "embed_tokens.weight",                       Table,   Vocab,     Hidden},
    {AttnNormWeight,     "layers.{L}.input_layernorm.weight",         Vector,  None,      Hidden},
    {QueryWeight,        "layers.{L}.self_attn.q_proj.weight",        Linear,  Hidden,    Hidden},
    {QueryBias,          "layers.{L}.self_attn.q_proj.bias",          Vector,  None,      Hidden,    kBase,  false,  kWithQkvBias},
    {KeyWeight,          "layers.{L}.self_attn.k_proj.weight",        Linear,  KvHidden,  Hidden},
    {KeyBias,            "layers.{L}.self_attn.k_proj.bias",          Vector,  None,      KvHidden,  kBase,  false,  kWithQkvBias},
    {ValueWeight,        "layers.{L}.self_attn.v_proj.weight",        Linear,  KvHidden,  Hidden},
    {ValueBias,          "layers.{L}.self_attn.v_proj.bias",          Vector,  None,      KvHidden,  kBase,  false,  kWithQkvBias},
    {AttnOutWeight,      "layers.{L}.self_attn.o_proj.weight",        Linear,  Hidden,    Hidden},
    {AttnOutBias,        "layers.{L}.self_attn.o_proj.bias",          Vector,  None,      Hidden,    kBase,  false,  kWithOutBias},
    {MlpNormWeight,      "layers.{L}.post_attention_layernorm.weight", Vector, None,      Hidden},
    {MlpGateWeight,      "layers.{L}.mlp.gate_proj.weight",           Linear,  Inner,     Hidden},
    {MlpInWeight,        "layers.{L}.mlp.up_proj.weight",             Linear,  Inner,     Hidden},
    {MlpOutWeight,       "layers.{L}.mlp.down_proj.weight",           Linear,  Hidden,    Inner},
    {FinalNormWeight,    "norm.weight",                               Vector,  None,      Hidden},
    {HeadDecoderWeight,  "lm_head.weight",                            Table,   Vocab,     Hidden,    kHead},
};

// transformers' GPTNeoXModel (base prefix "gpt_neox.") and GPTNeoXForCausalLM's embed_out.
// Buffers (attention.bias, attention.masked_bias, attention.rotary_emb.inv_freq) are not listed.
constexpr TensorSpec kGptNeox[] = {
    {WordEmbedding,      "embed_in.weight",                                Table,   Vocab,    Hidden},
    {AttnNormWeight,     "layers.{L}.input_layernorm.weight",              Vector,  None,     Hidden},
    {AttnNormBias,       "layers.{L}.input_layernorm.bias",                Vector,  None,     Hidden},
    {QkvWeight,          "layers.{L}.attention.query_key_value.weight",    Linear,  Hidden3,  Hidden},
    {QkvBias,            "layers.{L}.attention.query_key_value.bias",      Vector,  None,     Hidden3,  kBase,  false,  kWithQkvBias},
    {AttnOutWeight,      "layers.{L}.attention.dense.weight",              Linear,  Hidden,   Hidden},
    {AttnOutBias,        "layers.{L}.attention.dense.bias",                Vector,  None,     Hidden,   kBase,  false,  kWithOutBias},
    {MlpNormWeight,      "layers.{L}.post_attention_layernorm.weight",     Vector,  None,     Hidden},
    {MlpNormBias,        "layers.{L}.post_attention_layernorm.bias",       Vector,  None,     Hidden},
    {MlpInWeight,        "layers.{L}.mlp.dense_h_to_4h.weight",            Linear,  Inner,    Hidden},
    {MlpInBias,          "layers.{L}.mlp.dense_h_to_4h.bias",              Vector,  None,     Inner},
    {MlpOutWeight,       "layers.{L}.mlp.dense_4h_to_h.weight",            Linear,  Hidden,   Inner},
    {MlpOutBias,         "layers.{L}.mlp.dense_4h_to_h.bias",              Vector,  None,     Hidden},
    {FinalNormWeight,    "final_layer_norm.weight",                        Vector,  None,     Hidden},
    {FinalNormBias,      "final_layer_norm.bias",                          Vector,  None,     Hidden},
    {HeadDecoderWeight,  "embed_out.weight",                               Table,   Vocab,    Hidden,   kHead},
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
        case Dim::KvHidden:
            return std::int64_t(c.num_kv_heads) * c.headDim();
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

bool TensorSpec::isPartOf(const ModelConfig& config) const
{
    switch (presence) {
        case Presence::Always:
            return true;
        case Presence::WithQkvBias:
            return config.qkv_bias;
        case Presence::WithOutBias:
            return config.out_bias;
    }
    return true;
}

const ArchitectureTensors& tensorTable(ModelArchitecture architecture)
{
    static const ArchitectureTensors gpt2{QStringLiteral("transformer."), kGpt2};
    static const ArchitectureTensors bert{QStringLiteral("bert."), kBert};
    static const ArchitectureTensors distilbert{QStringLiteral("distilbert."), kDistilBert};
    static const ArchitectureTensors llama{QStringLiteral("model."), kLlama};
    static const ArchitectureTensors gpt_neox{QStringLiteral("gpt_neox."), kGptNeox};
    switch (architecture) {
        case ModelArchitecture::Llama:
        case ModelArchitecture::Qwen2:
        case ModelArchitecture::Mistral:
            return llama;
        case ModelArchitecture::GptNeox:
            return gpt_neox;
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
