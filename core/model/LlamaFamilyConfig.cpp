#include "core/model/LlamaFamilyConfig.h"

#include "core/model/ConfigKeys.h"

namespace attn {
namespace {

using namespace config_keys;

Error refused(const QString& key, const QJsonValue& value, const QString& why)
{
    return Error{QStringLiteral("'%1': %2 is not supported (%3)").arg(key, describe(value), why)};
}

Result<double> positiveNumber(const QJsonObject& object, const QString& key, double fallback)
{
    if (!object.contains(key))
        return fallback;
    const QJsonValue v = object.value(key);
    if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() <= 0)
        return Error{QStringLiteral("'%1' must be a finite positive number, got %2").arg(key, describe(v))};
    return v.toDouble();
}

// modeling_rope_utils: rope_scaling null or absent is the default rotation; "rope_type" (or the
// older "type") "default", "linear" (factor) or "llama3" (factor, low_freq_factor,
// high_freq_factor, original_max_position_embeddings). Any other type is refused.
Result<RopeScaling> ropeScaling(const QJsonObject& config)
{
    RopeScaling scaling;
    const QJsonValue value = config.value(QLatin1String("rope_scaling"));
    if (value.isUndefined() || value.isNull())
        return scaling;
    if (!value.isObject())
        return Error{QStringLiteral("'rope_scaling' must be an object or null, got %1").arg(describe(value))};
    const QJsonObject object = value.toObject();
    const QJsonValue type = object.contains(QLatin1String("rope_type")) ? object.value(QLatin1String("rope_type"))
                                                                        : object.value(QLatin1String("type"));
    if (!type.isString())
        return Error{QStringLiteral("'rope_scaling': 'rope_type' must be a string, got %1").arg(describe(type))};
    const QString name = type.toString();
    if (name == u"default")
        return scaling;
    if (name != u"linear" && name != u"llama3")
        return Error{QStringLiteral("'rope_scaling': rope type %1 is not supported (supported: default, linear, "
                                    "llama3)")
                         .arg(quotedForMessage(name))};
    const auto required = [&object](const char* key) -> Result<double> {
        if (!object.contains(QLatin1String(key)))
            return Error{QStringLiteral("'rope_scaling': '%1' is missing").arg(QLatin1String(key))};
        auto v = positiveNumber(object, QLatin1String(key), 0);
        if (!v)
            return Error{QStringLiteral("'rope_scaling': %1").arg(v.error())};
        return v;
    };
    ATTN_TRY(scaling.factor, required("factor"));
    if (name == u"linear") {
        scaling.type = RopeScaling::Type::Linear;
        return scaling;
    }
    scaling.type = RopeScaling::Type::Llama3;
    ATTN_TRY(scaling.low_freq_factor, required("low_freq_factor"));
    ATTN_TRY(scaling.high_freq_factor, required("high_freq_factor"));
    double original = 0;
    ATTN_TRY(original, required("original_max_position_embeddings"));
    if (original != std::floor(original) || original > double(kMaxVocabulary))
        return Error{QStringLiteral("'rope_scaling': 'original_max_position_embeddings' must be a positive integer")};
    if (scaling.high_freq_factor == scaling.low_freq_factor)
        return Error{QStringLiteral("'rope_scaling': 'high_freq_factor' must differ from 'low_freq_factor'")};
    scaling.original_max_position_embeddings = int(original);
    return scaling;
}

// The keys every rotary architecture reads alike.
Status rotaryCommon(const ConfigKeys& keys, ModelConfig& c)
{
    ATTN_TRY(c.vocab_size, keys.size("vocab_size", kMaxVocabulary));
    ATTN_TRY(c.hidden_size, keys.size("hidden_size", kMaxWidth));
    ATTN_TRY(c.num_layers, keys.size("num_hidden_layers", kMaxLayers));
    ATTN_TRY(c.num_heads, keys.size("num_attention_heads", kMaxWidth));
    ATTN_TRY(c.intermediate_size, keys.size("intermediate_size", kMaxInner));
    c.causal = true;
    c.scale_attention = true;
    if (c.hidden_size % c.num_heads != 0)
        return Error{QStringLiteral("the hidden size %1 is not divisible by the %2 attention heads")
                         .arg(c.hidden_size)
                         .arg(c.num_heads)};
    return {};
}

}  // namespace

Result<ModelConfig> llamaFamilyConfig(const QJsonObject& object, ModelArchitecture architecture)
{
    const ConfigKeys keys(object, {});
    ModelConfig c;
    c.architecture = architecture;
    if (Status s = rotaryCommon(keys, c); !s)
        return Error{s.error()};
    const int default_positions = architecture == ModelArchitecture::Llama   ? 2048
                                  : architecture == ModelArchitecture::Qwen2 ? 32768
                                                                             : 4096 * 32;
    ATTN_TRY(c.max_positions, keys.size("max_position_embeddings", kMaxVocabulary, default_positions));
    ATTN_TRY(c.num_kv_heads, keys.size("num_key_value_heads", kMaxWidth, c.num_heads, true));
    if (c.num_heads % c.num_kv_heads != 0)
        return Error{QStringLiteral("the %1 attention heads are not divisible into %2 key/value heads "
                                    "(num_key_value_heads)")
                         .arg(c.num_heads)
                         .arg(c.num_kv_heads)};
    ATTN_TRY(c.activation, activationKey(keys, "hidden_act", QStringLiteral("silu")));
    ATTN_TRY(c.layer_norm_eps, keys.number("rms_norm_eps", 1e-6));
    ATTN_TRY(c.tie_word_embeddings, keys.flag("tie_word_embeddings", false));
    ATTN_TRY(c.rope_theta, positiveNumber(object, QStringLiteral("rope_theta"), 10000.0));
    ATTN_TRY(c.rope_scaling, ropeScaling(object));

    const QJsonValue head_dim = object.value(QLatin1String("head_dim"));
    if (!head_dim.isUndefined() && !head_dim.isNull() && head_dim.toDouble() != c.headDim())
        return refused(QStringLiteral("head_dim"), head_dim,
                       QStringLiteral("only hidden_size / num_attention_heads = %1").arg(c.headDim()));
    const QJsonValue partial = object.value(QLatin1String("partial_rotary_factor"));
    if (!partial.isUndefined() && !partial.isNull() && partial.toDouble() != 1.0)
        return refused(QStringLiteral("partial_rotary_factor"), partial,
                       QStringLiteral("the Llama family rotates "
                                      "every feature"));
    if (c.headDim() % 2 != 0)
        return Error{
            QStringLiteral("the head size %1 is odd: rotary positions turn pairs of features").arg(c.headDim())};
    c.rotary_dim = c.headDim();

    if (architecture == ModelArchitecture::Llama) {
        bool attention_bias = false;
        ATTN_TRY(attention_bias, keys.flag("attention_bias", false));
        c.qkv_bias = c.out_bias = attention_bias;
        if (Status s = refuseIfSet(keys, "mlp_bias", QStringLiteral("biases in the MLP projections")); !s)
            return Error{s.error()};
    } else if (architecture == ModelArchitecture::Qwen2) {
        c.qkv_bias = true;  // Qwen2Attention: q_proj, k_proj, v_proj with bias, o_proj without
        if (Status s = refuseIfSet(keys, "use_sliding_window",
                                   QStringLiteral("Qwen2's sliding window on the layers after max_window_layers"));
            !s)
            return Error{s.error()};
    } else {
        // MistralConfig: sliding_window 4096 unless the file says otherwise; null means none.
        const QJsonValue window = object.value(QLatin1String("sliding_window"));
        if (window.isNull())
            c.sliding_window = 0;
        else
            ATTN_TRY(c.sliding_window, keys.size("sliding_window", kMaxVocabulary, 4096));
    }
    return c;
}

Result<ModelConfig> gptNeoxConfig(const QJsonObject& object)
{
    const ConfigKeys keys(object, {{"rotary_pct", "partial_rotary_factor"}, {"rotary_emb_base", "rope_theta"}});
    ModelConfig c;
    c.architecture = ModelArchitecture::GptNeox;
    if (Status s = rotaryCommon(keys, c); !s)
        return Error{s.error()};
    c.num_kv_heads = c.num_heads;
    ATTN_TRY(c.max_positions, keys.size("max_position_embeddings", kMaxVocabulary, 2048));
    ATTN_TRY(c.activation, activationKey(keys, "hidden_act", QStringLiteral("gelu")));
    ATTN_TRY(c.layer_norm_eps, keys.number("layer_norm_eps", 1e-5));
    ATTN_TRY(c.tie_word_embeddings, keys.flag("tie_word_embeddings", false));
    ATTN_TRY(c.parallel_residual, keys.flag("use_parallel_residual", true));
    bool attention_bias = true;
    ATTN_TRY(attention_bias, keys.flag("attention_bias", true));
    c.qkv_bias = c.out_bias = attention_bias;
    ATTN_TRY(c.rope_theta, positiveNumber(object, keys.spelling("rotary_emb_base"), 10000.0));
    ATTN_TRY(c.rope_scaling, ropeScaling(object));
    double rotary_pct = 0.25;
    ATTN_TRY(rotary_pct, positiveNumber(object, keys.spelling("rotary_pct"), 0.25));
    if (rotary_pct > 1)
        return Error{QStringLiteral("'%1' must be at most 1, got %2").arg(keys.spelling("rotary_pct")).arg(rotary_pct)};
    c.rotary_dim = int(c.headDim() * rotary_pct);  // GPTNeoXAttention: int(head_size * rotary_pct)
    if (c.rotary_dim % 2 != 0)
        return Error{QStringLiteral("'%1' %2 rotates %3 features of each head, an odd number (rotary positions turn "
                                    "pairs of features)")
                         .arg(keys.spelling("rotary_pct"))
                         .arg(rotary_pct)
                         .arg(c.rotary_dim)};
    if (Status s = refuseIfSet(keys, "add_cross_attention", QStringLiteral("cross-attention layers")); !s)
        return Error{s.error()};
    return c;
}

#undef ATTN_TRY

}  // namespace attn
