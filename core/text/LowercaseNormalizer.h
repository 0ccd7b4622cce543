#pragma once

#include "core/text/TextNormalizer.h"

namespace attn {

// Hugging Face's Lowercase normalizer: each character lower-cased on its own with Unicode's full
// mapping (İ becomes i + U+0307), without context: a word-final Σ becomes σ, as in Rust's
// char::to_lowercase.
class LowercaseNormalizer : public TextNormalizer {
public:
    void normalize(NormalizedText& text) const override;
};

}  // namespace attn
