#pragma once

#include "core/text/TextNormalizer.h"

#include <QString>

namespace attn {

// Hugging Face's NFC, NFD, NFKC and NFKD normalizers: the text in that Unicode normalization
// form. The text is normalised one combining sequence (a starter and the marks after it) at a
// time so each character keeps the input range it came from; where sequences would compose
// across that border (Hangul jamo), the whole text is normalised at once and every character
// gets the text's whole range.
class UnicodeFormNormalizer : public TextNormalizer {
public:
    explicit UnicodeFormNormalizer(QString::NormalizationForm form) : m_form(form) {}
    void normalize(NormalizedText& text) const override;

private:
    QString::NormalizationForm m_form;
};

}  // namespace attn
