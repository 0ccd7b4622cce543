#pragma once

#include <QHash>
#include <QString>

#include <optional>

namespace attn {

// A subword model's vocabulary both ways: a token's id, and an id's token.
class TokenVocabulary {
public:
    TokenVocabulary() = default;
    explicit TokenVocabulary(const QHash<QString, int>& ids);

    std::optional<int> id(const QString& token) const;
    // Empty when no token has that id.
    QString token(int id) const;
    // One past the highest id.
    int idLimit() const { return m_idLimit; }

private:
    QHash<QString, int> m_ids;
    // By id in a table of the vocabulary's size: ids may be sparse (a 20-token file with the id
    // 16777215 must not cost 16 million entries).
    QHash<int, QString> m_tokens;
    int m_idLimit = 0;
};

}  // namespace attn
