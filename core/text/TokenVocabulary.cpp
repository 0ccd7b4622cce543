#include "core/text/TokenVocabulary.h"

#include <algorithm>

namespace attn {

TokenVocabulary::TokenVocabulary(const QHash<QString, int>& ids) : m_ids(ids)
{
    m_tokens.reserve(ids.size());
    for (auto it = ids.cbegin(); it != ids.cend(); ++it) {
        m_idLimit = std::max(m_idLimit, it.value() + 1);
        m_tokens.insert(it.value(), it.key());
    }
}

std::optional<int> TokenVocabulary::id(const QString& token) const
{
    const auto it = m_ids.constFind(token);
    return it == m_ids.cend() ? std::nullopt : std::optional<int>(it.value());
}

QString TokenVocabulary::token(int id) const
{
    return m_tokens.value(id);
}

}  // namespace attn
