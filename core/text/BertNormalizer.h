#pragma once

#include "core/text/TextNormalizer.h"

namespace attn {

// BERT's text clean-up, as Hugging Face's BertNormalizer does it, in this order:
// 1. clean text: drop U+0000, U+FFFD and control/format/private-use characters (Cc, Cf, Co;
//    tab, line feed and carriage return count as white space), turn white space into ' ';
// 2. Chinese characters (the CJK ideograph blocks) get a space on each side, so each is a word;
// 3. strip accents: canonical decomposition (NFD), then drop non-spacing marks (Mn);
// 4. lower-case, code point by code point (so 'Σ' is always 'σ', never the final 'ς').
class BertNormalizer : public TextNormalizer {
public:
    struct Options {
        bool cleanText = true;
        bool handleChineseChars = true;
        bool stripAccents = true;  // Hugging Face's default: the value of lowercase
        bool lowercase = true;
    };

    explicit BertNormalizer(Options options) : m_options(options) {}
    void normalize(NormalizedText& text) const override;

    const Options& options() const { return m_options; }

    // Shared with the BERT pre-tokenizer.
    static bool isWhitespace(char32_t c);
    static bool isChineseChar(char32_t c);

private:
    Options m_options;
};

}  // namespace attn
