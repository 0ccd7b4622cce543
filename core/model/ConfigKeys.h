#pragma once

#include "core/base/MessageText.h"
#include "core/base/Result.h"
#include "core/ops/Activation.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <cmath>
#include <utility>
#include <vector>

// Reading config.json keys as transformers' configuration classes read them, shared by the
// architectures' config parsers (ModelConfig.cpp, LlamaFamilyConfig.cpp).
namespace attn::config_keys {

// Generous bounds that keep every product of sizes far from overflowing; the tensors in the file
// must match the sizes anyway.
inline constexpr qint64 kMaxWidth = 65536;         // hidden size, heads (the engine's limit)
inline constexpr qint64 kMaxInner = 1 << 20;       // intermediate size
inline constexpr qint64 kMaxLayers = 4096;         // layers
inline constexpr qint64 kMaxVocabulary = 1 << 24;  // vocabulary, positions, token types

// A JSON value as a message shows it.
inline QString describe(const QJsonValue& v)
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

// Assigns a Result's value or returns its error from the enclosing function (the config parsers'
// shorthand; #undef'd at the end of each file that uses it).
#define ATTN_TRY(target, expression)               \
    do {                                           \
        auto attn_result = (expression);           \
        if (!attn_result)                          \
            return Error{attn_result.error()};     \
        (target) = std::move(attn_result).value(); \
    } while (false)

inline Status refuseIfSet(const ConfigKeys& keys, const char* key, const QString& why)
{
    auto set = keys.flag(key, false);
    if (!set)
        return Error{set.error()};
    if (*set)
        return Error{QStringLiteral("'%1': true is not supported (%2)").arg(QLatin1String(key), why)};
    return {};
}

inline Result<Activation> activationKey(const ConfigKeys& keys, const char* key, const QString& fallback)
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

}  // namespace attn::config_keys
