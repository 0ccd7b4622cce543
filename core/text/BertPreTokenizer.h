#pragma once

#include "core/text/PreTokenizer.h"

namespace attn {

// BERT's word split, as Hugging Face's BertPreTokenizer: white space separates words and is
// dropped; every punctuation character is a word of its own. Punctuation is ASCII 33–47, 58–64,
// 91–96 and 123–126 (so '$', '+', '^' count) plus every Unicode P* category.
class BertPreTokenizer : public PreTokenizer {
public:
    QList<NormalizedText> split(const NormalizedText& text) const override;

    static bool isPunctuation(char32_t c);
};

}  // namespace attn
