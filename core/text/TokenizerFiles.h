#pragma once

#include "core/base/Result.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace attn {

// Reading the files of a model folder, which come from anywhere and are trusted in nothing:
// sizes are checked before reading, and every error is one line that starts with the file's name.
class TokenizerFiles {
public:
    static constexpr qint64 kMaxFileBytes = 64 * 1024 * 1024;
    // Ids beyond this are refused: no real vocabulary comes near it, and it bounds the tables.
    static constexpr int kMaxTokenId = 1 << 24;

    static bool exists(const QString& dir, const QString& name);
    static Result<QByteArray> read(const QString& dir, const QString& name);
    static Result<QJsonObject> readJsonObject(const QString& dir, const QString& name);
    // An empty object when the file is absent.
    static Result<QJsonObject> readOptionalJsonObject(const QString& dir, const QString& name);

    // A whole number in [0, kMaxTokenId), or nothing.
    static std::optional<int> tokenId(const QJsonValue& value);
    // The text of a token name given either as a string or as {"content": "..."} (how
    // transformers writes an AddedToken); nothing for anything else.
    static std::optional<QString> tokenName(const QJsonValue& value);
    // A token → id table. `where` starts the error messages ("vocab.json", "tokenizer.json:
    // model.vocab"): the table must not be empty, and its ids must be distinct and in range.
    static Result<QHash<QString, int>> vocabulary(const QJsonObject& object, const QString& where);
    // A JSON string quoted for an error message.
    static QString quoted(const QString& text);
};

}  // namespace attn
