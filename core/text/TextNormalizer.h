#pragma once

#include "core/text/NormalizedText.h"

namespace attn {

// First step of a subword tokenizer: rewrites the text (clean-up, case, accents) before it is cut
// into words. Hugging Face's tokenizer.json calls this the "normalizer".
class TextNormalizer {
public:
    virtual ~TextNormalizer() = default;
    virtual void normalize(NormalizedText& text) const = 0;
};

}  // namespace attn
