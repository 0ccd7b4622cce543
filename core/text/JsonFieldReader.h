#pragma once

#include "core/base/Result.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace attn {

// Reads typed fields of one JSON object from an untrusted file; an error names the file and the
// field's path ("tokenizer.json: model.fuse_unk must be true or false"). A missing field or a
// null takes the fallback.
class JsonFieldReader {
public:
    JsonFieldReader(QJsonObject object, QString file, QString path)
        : m_object(std::move(object)), m_file(std::move(file)), m_path(std::move(path))
    {
    }

    const QJsonObject& object() const { return m_object; }
    bool has(const QString& key) const;  // present and not null
    QString where(const QString& key) const;
    Error error(const QString& key, const QString& problem) const;

    Result<bool> boolean(const QString& key, bool fallback) const;
    Result<std::optional<bool>> optionalBoolean(const QString& key) const;
    Result<QString> string(const QString& key, const QString& fallback) const;
    Result<int> positiveInt(const QString& key, int fallback) const;

private:
    QJsonObject m_object;
    QString m_file;
    QString m_path;
};

}  // namespace attn
