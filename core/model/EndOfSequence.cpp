#include "core/model/EndOfSequence.h"

#include "core/model/ModelFolder.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace attn {
namespace {

// A JSON number that is a non-negative integer id.
bool idOf(const QJsonValue& value, int& id)
{
    if (!value.isDouble())
        return false;
    const double number = value.toDouble();
    if (!(number >= 0.0 && number <= double(std::numeric_limits<int>::max()) && std::floor(number) == number))
        return false;
    id = int(number);
    return true;
}

}  // namespace

Result<std::vector<int>> EndOfSequence::parse(const QByteArray& json, bool& found)
{
    found = false;
    QJsonParseError parse_error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parse_error);
    if (parse_error.error != QJsonParseError::NoError)
        return Error{QStringLiteral("invalid JSON (%1)").arg(parse_error.errorString())};
    if (!doc.isObject())
        return Error{QStringLiteral("not a JSON object")};
    const QJsonValue value = doc.object().value(QLatin1String("eos_token_id"));
    if (value.isUndefined() || value.isNull())
        return std::vector<int>();
    found = true;
    std::vector<int> ids;
    int id = 0;
    if (idOf(value, id))
        return std::vector<int>{id};
    if (!value.isArray())
        return Error{QStringLiteral("eos_token_id: expected an integer id or a list of them")};
    for (const QJsonValue& entry : value.toArray()) {
        if (!idOf(entry, id))
            return Error{QStringLiteral("eos_token_id: expected an integer id or a list of them")};
        ids.push_back(id);
    }
    return ids;
}

Result<std::vector<int>> EndOfSequence::read(const QString& dir)
{
    for (const char* name : {"generation_config.json", "config.json"}) {
        const QString path = QDir(dir).filePath(QLatin1String(name));
        if (!QFileInfo(path).isFile())
            continue;
        auto text = readFolderFile(path, ModelFolder::kMaxJsonBytes);
        if (!text)
            return Error{QStringLiteral("%1 %2").arg(QLatin1String(name), text.error())};
        bool found = false;
        auto ids = parse(*text, found);
        if (!ids)
            return Error{QStringLiteral("%1: %2").arg(QLatin1String(name), ids.error())};
        if (found)
            return ids;
    }
    return std::vector<int>();
}

}  // namespace attn
