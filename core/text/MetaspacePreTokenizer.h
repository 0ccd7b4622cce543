#pragma once

#include "core/text/PreTokenizer.h"

namespace attn {

// SentencePiece's word marking, as Hugging Face's Metaspace pre-tokenizer does it: every ' '
// becomes the replacement character (usually U+2581 '▁'); then, unless the text already starts
// with it, one is put in front (prepend scheme "always"; "first": only for text that starts the
// input, not after an added token; "never": not at all); with split, the text is cut before each
// replacement character, which stays with the word after it.
class MetaspacePreTokenizer : public PreTokenizer {
public:
    enum class Prepend { Always, First, Never };

    MetaspacePreTokenizer(char32_t replacement, Prepend prepend, bool split);
    QList<NormalizedText> split(const NormalizedText& text) const override;

private:
    char32_t m_replacement;
    Prepend m_prepend;
    bool m_split;
};

}  // namespace attn
