#include "core/text/ByteLevelPostProcessor.h"

#include <algorithm>

namespace attn {
namespace {

bool isSpaceSymbol(QChar c)
{
    return c == QChar(0x0120) || c.isSpace();  // 'Ġ' is a space byte
}

}  // namespace

void ByteLevelPostProcessor::process(SubwordEncoding& encoding, bool /*addSpecialTokens*/) const
{
    if (!m_trimOffsets)
        return;
    for (qsizetype i = 0; i < encoding.tokens.size(); ++i) {
        Token& token = encoding.tokens[i];
        const QString& text = token.text;
        qsizetype leading = 0;
        while (leading < text.size() && isSpaceSymbol(text.at(leading)))
            ++leading;
        qsizetype trailing = 0;
        while (trailing < text.size() && isSpaceSymbol(text.at(text.size() - 1 - trailing)))
            ++trailing;
        if (leading > 0) {
            const bool first = i == 0 || token.begin == 0;
            if (first && m_addPrefixSpace && leading == 1)
                leading = 0;  // the space the pre-tokenizer added is not in the input
            token.begin = std::min(token.begin + leading, token.end);
        }
        if (trailing > 0 && token.end >= trailing)
            token.end = std::max(token.end - trailing, token.begin);
    }
}

}  // namespace attn
