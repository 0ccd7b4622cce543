#pragma once

// GPT-2's spelling of bytes as printable characters (OpenAI's `bytes_to_unicode`), so a BPE
// vocabulary of byte sequences can be stored as text: the printable bytes '!'..'~', '¡'..'¬' and
// '®'..'ÿ' stand for themselves; the other 68 bytes, in increasing order, become U+0100, U+0101, …
// (so a space is 'Ġ', U+0120, and a line feed 'Ċ', U+010A).

#include <QChar>

#include <array>
#include <optional>

namespace attn {

class ByteLevelAlphabet {
public:
    static QChar charForByte(unsigned char byte) { return table().forward[byte]; }
    static std::optional<unsigned char> byteForChar(QChar c);

private:
    struct Tables {
        std::array<QChar, 256> forward;
        std::array<short, 324> backward;  // code point → byte, or -1
    };
    static const Tables& table();
};

}  // namespace attn
