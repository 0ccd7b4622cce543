#pragma once

#include "core/text/PreTokenizer.h"

namespace attn {

// Hugging Face's Digits pre-tokenizer: numeric characters (Unicode Nd, Nl, No) are cut out of
// the text, each on its own with individualDigits, otherwise as runs.
class DigitsPreTokenizer : public PreTokenizer {
public:
    explicit DigitsPreTokenizer(bool individualDigits) : m_individualDigits(individualDigits) {}
    QList<NormalizedText> split(const NormalizedText& text) const override;

private:
    bool m_individualDigits;
};

}  // namespace attn
