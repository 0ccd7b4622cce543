#pragma once

#include "core/text/TextNormalizer.h"

#include <QString>

namespace attn {

// Hugging Face's Prepend normalizer: `prefix` put in front of any text that is not empty (the
// SentencePiece "▁" of Llama 2); the prefix covers the empty input range where the text starts.
class PrependNormalizer : public TextNormalizer {
public:
    explicit PrependNormalizer(QString prefix) : m_prefix(std::move(prefix)) {}
    void normalize(NormalizedText& text) const override
    {
        if (text.isEmpty())
            return;
        const qsizetype at = text.inputRange(0, 1).first;
        NormalizedText out;
        for (char32_t code : m_prefix.toUcs4())
            out.append(code, at, at);
        for (const NormalizedText::Char& c : text.chars())
            out.append(c.code, c.begin, c.end);
        text = std::move(out);
    }

private:
    QString m_prefix;
};

}  // namespace attn
