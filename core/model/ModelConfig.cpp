#include "core/model/ModelConfig.h"

#include "core/model/ConfigKeys.h"
#include "core/model/LlamaFamilyConfig.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <utility>
#include <vector>

namespace attn {
namespace {

using namespace config_keys;

// transformers' GPT2Config.
Result<ModelConfig> gpt2Config(const QJsonObject& object)
{
    const ConfigKeys keys(object, {{"n_embd", "hidden_size"},
                                   {"n_positions", "max_position_embeddings"},
                                   {"n_head", "num_attention_heads"},
                                   {"n_layer", "num_hidden_layers"}});
    ModelConfig c;
    c.architecture = ModelArchitecture::Gpt2;
    c.causal = true;
    ATTN_TRY(c.vocab_size, keys.size("vocab_size", kMaxVocabulary));
    ATTN_TRY(c.max_positions, keys.size("n_positions", kMaxVocabulary));
    ATTN_TRY(c.hidden_size, keys.size("n_embd", kMaxWidth));
    ATTN_TRY(c.num_layers, keys.size("n_layer", kMaxLayers));
    ATTN_TRY(c.num_heads, keys.size("n_head", kMaxWidth));
    ATTN_TRY(c.intermediate_size, keys.size("n_inner", kMaxInner, 4 * c.hidden_size, true));
    ATTN_TRY(c.activation, activationKey(keys, "activation_function", QStringLiteral("gelu_new")));
    ATTN_TRY(c.layer_norm_eps, keys.number("layer_norm_epsilon", 1e-5));
    ATTN_TRY(c.scale_attention, keys.flag("scale_attn_weights", true));
    ATTN_TRY(c.tie_word_embeddings, keys.flag("tie_word_embeddings", true));
    // reorder_and_upcast_attn only moves the scale before the product and upcasts float16 under
    // autocast: in float32 it is the same computation, so it is accepted.
    if (Status s = refuseIfSet(keys, "scale_attn_by_inverse_layer_idx",
                               QStringLiteral("it divides layer l's scores by l + 1"));
        !s)
        return Error{s.error()};
    if (Status s = refuseIfSet(keys, "add_cross_attention", QStringLiteral("cross-attention layers")); !s)
        return Error{s.error()};
    c.num_kv_heads = c.num_heads;
    return c;
}

// transformers' BertConfig (its layer_norm_eps defaults to 1e-12).
Result<ModelConfig> bertConfig(const QJsonObject& object)
{
    const ConfigKeys keys(object, {});
    ModelConfig c;
    c.architecture = ModelArchitecture::Bert;
    ATTN_TRY(c.vocab_size, keys.size("vocab_size", kMaxVocabulary));
    ATTN_TRY(c.hidden_size, keys.size("hidden_size", kMaxWidth));
    ATTN_TRY(c.num_layers, keys.size("num_hidden_layers", kMaxLayers));
    ATTN_TRY(c.num_heads, keys.size("num_attention_heads", kMaxWidth));
    ATTN_TRY(c.intermediate_size, keys.size("intermediate_size", kMaxInner));
    ATTN_TRY(c.max_positions, keys.size("max_position_embeddings", kMaxVocabulary));
    ATTN_TRY(c.type_vocab_size, keys.size("type_vocab_size", kMaxVocabulary));
    ATTN_TRY(c.activation, activationKey(keys, "hidden_act", QStringLiteral("gelu")));
    ATTN_TRY(c.layer_norm_eps, keys.number("layer_norm_eps", 1e-12));
    ATTN_TRY(c.tie_word_embeddings, keys.flag("tie_word_embeddings", true));
    QString position_type;
    ATTN_TRY(position_type, keys.text("position_embedding_type", QStringLiteral("absolute")));
    if (position_type != u"absolute")
        return Error{QStringLiteral("'position_embedding_type': %1 is not supported (only \"absolute\"; "
                                    "relative position embeddings change the scores)")
                         .arg(quotedForMessage(position_type))};
    if (Status s = refuseIfSet(keys, "is_decoder", QStringLiteral("a decoder BERT masks its attention causally")); !s)
        return Error{s.error()};
    if (Status s = refuseIfSet(keys, "add_cross_attention", QStringLiteral("cross-attention layers")); !s)
        return Error{s.error()};
    c.num_kv_heads = c.num_heads;
    return c;
}

// transformers' DistilBertConfig (the model's LayerNorms use eps 1e-12, fixed in its code).
Result<ModelConfig> distilBertConfig(const QJsonObject& object)
{
    const ConfigKeys keys(
        object, {{"dim", "hidden_size"}, {"n_heads", "num_attention_heads"}, {"n_layers", "num_hidden_layers"}});
    ModelConfig c;
    c.architecture = ModelArchitecture::DistilBert;
    c.layer_norm_eps = 1e-12;
    ATTN_TRY(c.vocab_size, keys.size("vocab_size", kMaxVocabulary));
    ATTN_TRY(c.max_positions, keys.size("max_position_embeddings", kMaxVocabulary));
    ATTN_TRY(c.hidden_size, keys.size("dim", kMaxWidth));
    ATTN_TRY(c.num_layers, keys.size("n_layers", kMaxLayers));
    ATTN_TRY(c.num_heads, keys.size("n_heads", kMaxWidth));
    ATTN_TRY(c.intermediate_size, keys.size("hidden_dim", kMaxInner));
    ATTN_TRY(c.activation, activationKey(keys, "activation", QStringLiteral("gelu")));
    ATTN_TRY(c.sinusoidal_positions, keys.flag("sinusoidal_pos_embds", false));
    ATTN_TRY(c.tie_word_embeddings, keys.flag("tie_word_embeddings", true));
    c.num_kv_heads = c.num_heads;
    return c;
}

#undef ATTN_TRY

}  // namespace

Result<ModelConfig> ModelConfig::fromJson(const QByteArray& json)
{
    QJsonParseError parse_error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parse_error);
    if (parse_error.error != QJsonParseError::NoError)
        return Error{
            QStringLiteral("not valid JSON (%1 at byte %2)").arg(parse_error.errorString()).arg(parse_error.offset)};
    if (!doc.isObject())
        return Error{QStringLiteral("not a JSON object")};
    const QJsonObject object = doc.object();
    const QJsonValue type = object.value(QLatin1String("model_type"));
    if (!type.isString())
        return Error{type.isUndefined() ? QStringLiteral("'model_type' is missing")
                                        : QStringLiteral("'model_type' must be a string, got %1").arg(describe(type))};

    const QString model_type = type.toString();
    Result<ModelConfig> config = Error{};
    if (model_type == u"gpt2")
        config = gpt2Config(object);
    else if (model_type == u"bert")
        config = bertConfig(object);
    else if (model_type == u"distilbert")
        config = distilBertConfig(object);
    else if (model_type == u"llama")
        config = llamaFamilyConfig(object, ModelArchitecture::Llama);
    else if (model_type == u"qwen2")
        config = llamaFamilyConfig(object, ModelArchitecture::Qwen2);
    else if (model_type == u"mistral")
        config = llamaFamilyConfig(object, ModelArchitecture::Mistral);
    else if (model_type == u"gpt_neox")
        config = gptNeoxConfig(object);
    else
        return Error{QStringLiteral("unknown model_type %1 (supported: gpt2, bert, distilbert, llama, qwen2, "
                                    "mistral, gpt_neox)")
                         .arg(quotedForMessage(model_type))};
    if (!config)
        return config;

    config->model_type = model_type;
    if (config->hidden_size % config->num_heads != 0)
        return Error{QStringLiteral("the hidden size %1 is not divisible by the %2 attention heads")
                         .arg(config->hidden_size)
                         .arg(config->num_heads)};
    return config;
}

}  // namespace attn
