#include "core/text/JsonFieldReader.h"

#include <QJsonValue>

#include <cmath>

namespace attn {

bool JsonFieldReader::has(const QString& key) const
{
    const QJsonValue value = m_object.value(key);
    return !value.isUndefined() && !value.isNull();
}

QString JsonFieldReader::where(const QString& key) const
{
    return m_path.isEmpty() ? key : m_path + u'.' + key;
}

Error JsonFieldReader::error(const QString& key, const QString& problem) const
{
    return Error{QStringLiteral("%1: %2 %3").arg(m_file, where(key), problem)};
}

Result<bool> JsonFieldReader::boolean(const QString& key, bool fallback) const
{
    Result<std::optional<bool>> value = optionalBoolean(key);
    if (!value)
        return Error{value.error()};
    return value->value_or(fallback);
}

Result<std::optional<bool>> JsonFieldReader::optionalBoolean(const QString& key) const
{
    if (!has(key))
        return std::optional<bool>();
    const QJsonValue value = m_object.value(key);
    if (!value.isBool())
        return error(key, QStringLiteral("must be true or false"));
    return std::optional<bool>(value.toBool());
}

Result<QString> JsonFieldReader::string(const QString& key, const QString& fallback) const
{
    if (!has(key))
        return fallback;
    const QJsonValue value = m_object.value(key);
    if (!value.isString())
        return error(key, QStringLiteral("must be a string"));
    return value.toString();
}

Result<int> JsonFieldReader::positiveInt(const QString& key, int fallback) const
{
    if (!has(key))
        return fallback;
    const QJsonValue value = m_object.value(key);
    const double number = value.toDouble(-1);
    if (!value.isDouble() || !(number >= 1 && number <= 1e9) || std::floor(number) != number)
        return error(key, QStringLiteral("must be a whole number from 1 to 1000000000"));
    return int(number);
}

}  // namespace attn
