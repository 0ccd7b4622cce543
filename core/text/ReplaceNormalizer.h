#pragma once

#include "core/text/TextNormalizer.h"

#include <QRegularExpression>

namespace attn {

// Hugging Face's Replace normalizer: every match of the pattern (a literal string or a regular
// expression) replaced by `content`, whose characters take the input range of the match.
class ReplaceNormalizer : public TextNormalizer {
public:
    ReplaceNormalizer(QRegularExpression pattern, QString content)
        : m_pattern(std::move(pattern)), m_content(std::move(content))
    {
    }
    void normalize(NormalizedText& text) const override;

private:
    QRegularExpression m_pattern;
    QString m_content;
};

}  // namespace attn
