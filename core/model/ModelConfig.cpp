#include "core/model/ModelConfig.h"

#include "core/base/MessageText.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <utility>
#include <vector>

namespace attn {
namespace {

// Generous bounds that keep every product of sizes far from overflowing; the tensors in the file
// must match the sizes anyway.
constexpr qint64 kMaxWidth = 65536;         // hidden size, heads (the engine's limit)
constexpr qint64 kMaxInner = 1 << 20;       // intermediate size
constexpr qint64 kMaxLayers = 4096;         // layers
constexpr qint64 kMaxVocabulary = 1 << 24;  // vocabulary, positions, token types

QString describe(const QJsonValue& v)
{
    switch (v.type()) {
        case QJsonValue::String:
            return quotedForMessage(v.toString());
        case QJsonValue::Double:
            return QString::number(v.toDouble(), 'g', 17);
        case QJsonValue::Bool:
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        case QJsonValue::Null:
            return QStringLiteral("null");
        case QJsonValue::Array:
            return QStringLiteral("an array");
        default:
            return QStringLiteral("an object");
    }
}

// Reads keys of one config.json object with transformers' aliases: `aliases` maps the name the
// configuration class stores (e.g. "n_embd") to the attribute_map name that sets it
// ("hidden_size"); when the file gives the alias, its value wins.
class ConfigKeys {
public:
    ConfigKeys(const QJsonObject& object, std::vector<std::pair<const char*, const char*>> aliases)
        : m_object(object), m_aliases(std::move(aliases))
    {
    }

    bool has(const char* key) const { return m_object.contains(spelling(key)); }

    // A size that sets a tensor shape: present, an integer from 1 to `limit`.
    Result<int> size(const char* key, qint64 limit) const
    {
        if (!has(key))
            return Error{QStringLiteral("%1 is missing (it sets the shape of the model's tensors)").arg(both(key))};
        return integer(key, limit);
    }

    // A size with a default when absent (or null, when `null_is_default`).
    Result<int> size(const char* key, qint64 limit, int fallback, bool null_is_default = false) const
    {
        if (!has(key) || (null_is_default && value(key).isNull()))
            return fallback;
        return integer(key, limit);
    }

    Result<bool> flag(const char* key, bool fallback) const
    {
        if (!has(key))
            return fallback;
        const QJsonValue v = value(key);
        if (!v.isBool())
            return Error{QStringLiteral("'%1' must be true or false, got %2").arg(spelling(key), describe(v))};
        return v.toBool();
    }

    Result<double> number(const char* key, double fallback) const
    {
        if (!has(key))
            return fallback;
        const QJsonValue v = value(key);
        if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < 0)
            return Error{
                QStringLiteral("'%1' must be a finite non-negative number, got %2").arg(spelling(key), describe(v))};
        return v.toDouble();
    }

    Result<QString> text(const char* key, const QString& fallback) const
    {
        if (!has(key))
            return fallback;
        const QJsonValue v = value(key);
        if (!v.isString())
            return Error{QStringLiteral("'%1' must be a string, got %2").arg(spelling(key), describe(v))};
        return v.toString();
    }

    // The name the file uses for a key (the alias when it is given), for messages.
    QString spelling(const char* key) const
    {
        for (const auto& [name, alias] : m_aliases)
            if (qstrcmp(name, key) == 0 && m_object.contains(QLatin1String(alias)))
                return QLatin1String(alias);
        return QLatin1String(key);
    }

private:
    QJsonValue value(const char* key) const { return m_object.value(spelling(key)); }

    QString both(const char* key) const
    {
        for (const auto& [name, alias] : m_aliases)
            if (qstrcmp(name, key) == 0)
                return QStringLiteral("'%1' (or '%2')").arg(QLatin1String(key), QLatin1String(alias));
        return QStringLiteral("'%1'").arg(QLatin1String(key));
    }

    Result<int> integer(const char* key, qint64 limit) const
    {
        const QJsonValue v = value(key);
        const double d = v.toDouble();
        if (!v.isDouble() || d != std::floor(d) || d < 1 || d > double(limit))
            return Error{QStringLiteral("'%1' must be a positive integer of at most %2, got %3")
                             .arg(spelling(key))
                             .arg(limit)
                             .arg(describe(v))};
        return int(d);
    }

    QJsonObject m_object;
    std::vector<std::pair<const char*, const char*>> m_aliases;
};

// Assigns a Result's value or returns its error from the enclosing function.
#define ATTN_TRY(target, expression)               \
    do {                                           \
        auto attn_result = (expression);           \
        if (!attn_result)                          \
            return Error{attn_result.error()};     \
        (target) = std::move(attn_result).value(); \
    } while (false)

Status refuseIfSet(const ConfigKeys& keys, const char* key, const QString& why)
{
    auto set = keys.flag(key, false);
    if (!set)
        return Error{set.error()};
    if (*set)
        return Error{QStringLiteral("'%1': true is not supported (%2)").arg(QLatin1String(key), why)};
    return {};
}

Result<Activation> activationKey(const ConfigKeys& keys, const char* key, const QString& fallback)
{
    auto name = keys.text(key, fallback);
    if (!name)
        return Error{name.error()};
    const auto activation = activationFromName(*name);
    if (!activation)
        return Error{QStringLiteral("'%1': unknown activation function %2 (supported: %3)")
                         .arg(QLatin1String(key), quotedForMessage(*name), activationNames())};
    return *activation;
}

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
    else if (QStringList{"llama", "qwen2", "mistral", "gpt_neox"}.contains(model_type))
        return Error{QStringLiteral("model_type %1 is not supported yet (supported: gpt2, bert, distilbert)")
                         .arg(quotedForMessage(model_type))};
    else
        return Error{QStringLiteral("unknown model_type %1 (supported: gpt2, bert, distilbert)")
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
