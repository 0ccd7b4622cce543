#include "core/io/Session.h"

#include "core/base/BoundedRead.h"
#include "core/base/MessageText.h"
#include "core/io/AtomicFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>

namespace attn {
namespace {

constexpr int kMaxPathLength = 4096;

// A value as a message quotes it: short, whatever its type.
QString described(const QJsonValue& value)
{
    switch (value.type()) {
        case QJsonValue::String:
            return quotedForMessage(value.toString());
        case QJsonValue::Double:
            return QString::number(value.toDouble(), 'g', 17);
        case QJsonValue::Bool:
            return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        case QJsonValue::Array:
            return QStringLiteral("a list");
        case QJsonValue::Object:
            return QStringLiteral("an object");
        default:
            return QStringLiteral("null");
    }
}

QString number(double value)
{
    return QString::number(value, 'g', 17);
}

bool isWhole(const QJsonValue& value, double minimum, double maximum)
{
    if (!value.isDouble())
        return false;
    const double x = value.toDouble();
    return std::isfinite(x) && std::floor(x) == x && x >= minimum && x <= maximum;
}

// The value checked against its row; paths come back absolute.
Result<QJsonValue> checked(const SessionField& row, const QJsonValue& value, const QString& folder)
{
    const QString key = QStringLiteral("\"%1\"").arg(QLatin1String(row.key));
    const auto refuse = [&](const QString& expected) {
        return Error{QStringLiteral("%1: expected %2, got %3").arg(key, expected, described(value))};
    };
    switch (row.type) {
        case SessionValueType::Text:
            if (!value.isString())
                return refuse(QStringLiteral("a string"));
            if (value.toString().size() > row.maximum)
                return Error{QStringLiteral("%1: longer than %2 characters").arg(key, number(row.maximum))};
            return value;
        case SessionValueType::Choice: {
            const QStringList choices = QString::fromLatin1(row.choices).split(u'|');
            if (!value.isString() || !choices.contains(value.toString()))
                return refuse(QStringLiteral("one of %1").arg(choices.join(QStringLiteral(", "))));
            return value;
        }
        case SessionValueType::File:
        case SessionValueType::Folder: {
            const bool folder_wanted = row.type == SessionValueType::Folder;
            if (!value.isString() || value.toString().isEmpty() || value.toString().size() > kMaxPathLength)
                return refuse(folder_wanted ? QStringLiteral("the path of a folder")
                                            : QStringLiteral("the path of a file"));
            const QString path = QDir(folder).absoluteFilePath(value.toString());
            const QFileInfo info(path);
            if (folder_wanted ? !info.isDir() : !info.isFile())
                return Error{QStringLiteral("%1: no such %2: %3")
                                 .arg(key, folder_wanted ? QStringLiteral("folder") : QStringLiteral("file"),
                                      escapedForMessage(path))};
            return QJsonValue(QDir::cleanPath(info.absoluteFilePath()));
        }
        case SessionValueType::Integer:
            if (!isWhole(value, row.minimum, row.maximum))
                return refuse(QStringLiteral("an integer from %1 to %2").arg(number(row.minimum), number(row.maximum)));
            return value;
        case SessionValueType::IntegerList: {
            const QString expected =
                QStringLiteral("a list of 1 to %1 integers from %2 to %3")
                    .arg(QString::number(row.maximum_count), number(row.minimum), number(row.maximum));
            if (!value.isArray())
                return refuse(expected);
            const QJsonArray list = value.toArray();
            if (list.isEmpty() || list.size() > row.maximum_count)
                return Error{QStringLiteral("%1: expected %2, got %3 entries").arg(key, expected).arg(list.size())};
            for (const QJsonValue& entry : list)
                if (!isWhole(entry, row.minimum, row.maximum))
                    return Error{QStringLiteral("%1: expected %2, got %3").arg(key, expected, described(entry))};
            return value;
        }
        case SessionValueType::Number:
            if (!value.isDouble() || !std::isfinite(value.toDouble()) || value.toDouble() < row.minimum ||
                value.toDouble() > row.maximum)
                return refuse(QStringLiteral("a number from %1 to %2").arg(number(row.minimum), number(row.maximum)));
            return value;
        case SessionValueType::Flag:
            if (!value.isBool())
                return refuse(QStringLiteral("true or false"));
            return value;
    }
    return refuse(QStringLiteral("a known value"));
}

// The command-line spelling of a value as the file holds it.
Result<QJsonValue> fromText(const SessionField& row, const QString& text)
{
    const auto integer = [](const QString& part) -> QJsonValue {
        bool ok = false;
        const qint64 value = part.trimmed().toLongLong(&ok);
        return ok ? QJsonValue(double(value)) : QJsonValue(part);
    };
    switch (row.type) {
        case SessionValueType::Integer:
            return integer(text);
        case SessionValueType::IntegerList: {
            QJsonArray list;
            for (const QString& part : text.split(u','))
                list.append(integer(part));
            return QJsonValue(list);
        }
        case SessionValueType::Number: {
            bool ok = false;
            const double value = text.trimmed().toDouble(&ok);
            return ok ? QJsonValue(value) : QJsonValue(text);
        }
        case SessionValueType::Flag:
            return QJsonValue(text != u"false");
        case SessionValueType::Choice:
            return QJsonValue(text.trimmed());
        default:
            return QJsonValue(text);
    }
}

QString toText(const SessionField& row, const QJsonValue& value)
{
    switch (row.type) {
        case SessionValueType::Integer:
            return QString::number(qint64(value.toDouble()));
        case SessionValueType::IntegerList: {
            QStringList parts;
            for (const QJsonValue& entry : value.toArray())
                parts << QString::number(qint64(entry.toDouble()));
            return parts.join(u',');
        }
        case SessionValueType::Number:
            return number(value.toDouble());
        case SessionValueType::Flag:
            return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        default:
            return value.toString();
    }
}

}  // namespace

QString Session::text(QStringView key) const
{
    const SessionField* row = SessionFields::find(key);
    const auto it = m_values.constFind(key.toString());
    return row && it != m_values.cend() ? toText(*row, *it) : QString();
}

Status Session::set(const QString& key, const QString& text)
{
    const SessionField* row = SessionFields::find(key);
    if (!row)
        return Error{QStringLiteral("\"%1\": not a session key").arg(key)};
    auto value = fromText(*row, text);
    if (!value)
        return Error{value.error()};
    auto valid = checked(*row, *value, QDir::currentPath());
    if (!valid)
        return Error{valid.error()};
    if (row->type == SessionValueType::Flag && !valid->toBool())
        m_values.remove(key);
    else
        m_values.insert(key, *valid);
    return {};
}

QStringList Session::arguments(const std::function<bool(const SessionField&)>& skip) const
{
    QStringList arguments;
    for (const SessionField& row : SessionFields::rows()) {
        const QString key = QString::fromLatin1(row.key);
        if (!m_values.contains(key) || (skip && skip(row)))
            continue;
        arguments << QStringLiteral("--%1").arg(QLatin1String(row.option));
        if (row.type != SessionValueType::Flag)
            arguments << toText(row, m_values.value(key));
    }
    return arguments;
}

Result<Session> Session::fromJson(const QByteArray& json, const QString& folder)
{
    QJsonParseError parse_error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parse_error);
    if (parse_error.error != QJsonParseError::NoError)
        return Error{
            QStringLiteral("not valid JSON (%1 at byte %2)").arg(parse_error.errorString()).arg(parse_error.offset)};
    if (!document.isObject())
        return Error{QStringLiteral("not an attention-lab session (expected a JSON object)")};
    const QJsonObject object = document.object();
    const QJsonValue format = object.value(QStringLiteral("format"));
    if (format != QJsonValue(QLatin1String(kFormat)))
        return Error{
            QStringLiteral("not an attention-lab session (\"format\" is %1, expected \"%2\")")
                .arg(format.isUndefined() ? QStringLiteral("missing") : described(format), QLatin1String(kFormat))};
    const QJsonValue version = object.value(QStringLiteral("version"));
    if (version != QJsonValue(kVersion))
        return Error{QStringLiteral("session version %1 is not supported (this program reads version %2)")
                         .arg(version.isUndefined() ? QStringLiteral("missing") : described(version))
                         .arg(kVersion)};
    Session session;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (it.key() == u"format" || it.key() == u"version")
            continue;
        const SessionField* row = SessionFields::find(it.key());
        if (!row)
            return Error{QStringLiteral("%1: not a session key").arg(quotedForMessage(it.key()))};
        auto value = checked(*row, it.value(), folder);
        if (!value)
            return Error{value.error()};
        if (row->type != SessionValueType::Flag || value->toBool())
            session.m_values.insert(it.key(), *value);
    }
    return session;
}

Result<Session> Session::read(const QString& path)
{
    QFile file(path);
    if (QFileInfo(path).isDir())
        return Error{QStringLiteral("is a folder, not a session file")};
    if (!file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot be read (%1)").arg(file.errorString())};
    const BoundedRead read = readAtMost(file, kMaxFileBytes);
    if (read.over_limit)
        return Error{QStringLiteral("larger than %1 MiB: not a session file").arg(kMaxFileBytes >> 20)};
    if (read.failed)
        return Error{QStringLiteral("cannot be read (%1)").arg(file.errorString())};
    return fromJson(read.bytes, QFileInfo(path).absolutePath());
}

QByteArray Session::toJson() const
{
    QJsonObject object;
    object.insert(QStringLiteral("format"), QLatin1String(kFormat));
    object.insert(QStringLiteral("version"), kVersion);
    for (auto it = m_values.constBegin(); it != m_values.constEnd(); ++it)
        object.insert(it.key(), it.value());
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

Status Session::write(const QString& path) const
{
    return AtomicFile::write(path, toJson());
}

}  // namespace attn
