#include "core/text/TokenizerFiles.h"

#include "core/base/BoundedRead.h"
#include "core/base/MessageText.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

#include <cmath>

namespace attn {

bool TokenizerFiles::exists(const QString& dir, const QString& name)
{
    return QFileInfo(QDir(dir).filePath(name)).isFile();
}

Result<QByteArray> TokenizerFiles::read(const QString& dir, const QString& name)
{
    const QString path = QDir(dir).filePath(name);
    const QFileInfo info(path);
    if (!info.isFile())
        return Error{QStringLiteral("%1: not found").arg(name)};
    if (info.size() > kMaxFileBytes)
        return Error{QStringLiteral("%1: %2 bytes, more than the %3 MiB a tokenizer file may have")
                         .arg(name)
                         .arg(info.size())
                         .arg(kMaxFileBytes / (1024 * 1024))};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("%1: cannot be read (%2)").arg(name, file.errorString())};
    // The file may have grown since it was measured: never read past the limit.
    BoundedRead read = readAtMost(file, kMaxFileBytes);
    if (read.over_limit)
        return Error{QStringLiteral("%1: more than the %2 MiB a tokenizer file may have")
                         .arg(name)
                         .arg(kMaxFileBytes / (1024 * 1024))};
    if (read.failed)
        return Error{QStringLiteral("%1: cannot be read (%2)").arg(name, file.errorString())};
    return std::move(read.bytes);
}

Result<QJsonObject> TokenizerFiles::readJsonObject(const QString& dir, const QString& name)
{
    Result<QByteArray> bytes = read(dir, name);
    if (!bytes)
        return Error{bytes.error()};
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{QStringLiteral("%1: not valid JSON (%2 at byte %3)")
                         .arg(name, parseError.errorString())
                         .arg(parseError.offset)};
    if (!document.isObject())
        return Error{QStringLiteral("%1: the top level is not a JSON object").arg(name)};
    return document.object();
}

Result<QJsonObject> TokenizerFiles::readOptionalJsonObject(const QString& dir, const QString& name)
{
    if (!exists(dir, name))
        return QJsonObject();
    return readJsonObject(dir, name);
}

std::optional<int> TokenizerFiles::tokenId(const QJsonValue& value)
{
    if (!value.isDouble())
        return std::nullopt;
    const double number = value.toDouble();
    if (!(number >= 0 && number < kMaxTokenId) || std::floor(number) != number)
        return std::nullopt;
    return int(number);
}

std::optional<QString> TokenizerFiles::tokenName(const QJsonValue& value)
{
    if (value.isString())
        return value.toString();
    if (value.isObject() && value.toObject().value(QStringLiteral("content")).isString())
        return value.toObject().value(QStringLiteral("content")).toString();
    return std::nullopt;
}

Result<QHash<QString, int>> TokenizerFiles::vocabulary(const QJsonObject& object, const QString& where)
{
    if (object.isEmpty())
        return Error{QStringLiteral("%1 is empty").arg(where)};
    QHash<QString, int> vocab;
    vocab.reserve(object.size());
    QHash<int, QString> tokenById;
    tokenById.reserve(object.size());
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::optional<int> id = tokenId(it.value());
        if (!id)
            return Error{QStringLiteral("%1: the id of %2 is not a whole number from 0 to %3")
                             .arg(where, quoted(it.key()))
                             .arg(kMaxTokenId - 1)};
        const auto previous = tokenById.constFind(*id);
        if (previous != tokenById.cend())
            return Error{QStringLiteral("%1: id %2 is given to both %3 and %4")
                             .arg(where)
                             .arg(*id)
                             .arg(quoted(previous.value()), quoted(it.key()))};
        tokenById.insert(*id, it.key());
        vocab.insert(it.key(), *id);
    }
    return vocab;
}

QString TokenizerFiles::quoted(const QString& text)
{
    return quotedForMessage(text);
}

}  // namespace attn
