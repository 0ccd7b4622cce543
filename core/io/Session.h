#pragma once

#include "core/base/Result.h"
#include "core/io/SessionFields.h"

#include <QByteArray>
#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>

namespace attn {

// A saved state of the program (docs/sessions.md): the values of SessionFields' rows, each checked
// as the table says before anything uses it. The file is a JSON object: "format":
// "attention-lab-session", "version": 1, and one key per value given. Another format or version,
// an unknown key, a value of the wrong type or out of its range, a file or folder that does not
// exist: refused, with a message that names the key.
class Session {
public:
    static constexpr const char* kFormat = "attention-lab-session";
    static constexpr int kVersion = 1;
    // Larger files are refused before they are parsed (the longest sentence is 4 Mi characters).
    static constexpr qint64 kMaxFileBytes = qint64(32) << 20;

    bool has(QStringView key) const { return m_values.contains(key.toString()); }
    bool isEmpty() const { return m_values.isEmpty(); }
    // The value as its command-line option spells it: "2", "1,2,3", a path, "true" for a flag.
    QString text(QStringView key) const;
    // Sets `key` from its command-line spelling (a path made absolute), checked as a file's value.
    Status set(const QString& key, const QString& text);
    void remove(const QString& key) { m_values.remove(key); }

    // --option value for every value held, in the table's order (a flag alone), except the rows
    // `skip` says no to.
    QStringList arguments(const std::function<bool(const SessionField&)>& skip = {}) const;

    // A session file: at most kMaxFileBytes; relative paths start at the file's folder.
    static Result<Session> read(const QString& path);
    // The file's text; `folder` is where relative paths start.
    static Result<Session> fromJson(const QByteArray& json, const QString& folder);
    QByteArray toJson() const;
    // Atomically: a failure leaves nothing behind.
    Status write(const QString& path) const;

    bool operator==(const Session& other) const { return m_values == other.m_values; }

private:
    QMap<QString, QJsonValue> m_values;  // checked, by key
};

}  // namespace attn
