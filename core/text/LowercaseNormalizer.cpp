#include "core/text/LowercaseNormalizer.h"

namespace attn {

void LowercaseNormalizer::normalize(NormalizedText& text) const
{
    NormalizedText out;
    for (const NormalizedText::Char& c : text.chars())
        for (char32_t lower : QString::fromUcs4(&c.code, 1).toLower().toUcs4())
            out.append(lower, c.begin, c.end);
    text = std::move(out);
}

}  // namespace attn
