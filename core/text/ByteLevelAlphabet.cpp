#include "core/text/ByteLevelAlphabet.h"

namespace attn {

const ByteLevelAlphabet::Tables& ByteLevelAlphabet::table()
{
    static const Tables tables = [] {
        Tables t;
        t.backward.fill(-1);
        int next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            const int code = printable ? b : next++;
            t.forward[b] = QChar(char16_t(code));
            t.backward[code] = short(b);
        }
        return t;
    }();
    return tables;
}

std::optional<unsigned char> ByteLevelAlphabet::byteForChar(QChar c)
{
    const char16_t code = c.unicode();
    if (code >= table().backward.size() || table().backward[code] < 0)
        return std::nullopt;
    return static_cast<unsigned char>(table().backward[code]);
}

}  // namespace attn
