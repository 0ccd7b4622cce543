#pragma once

#include "core/text/PreTokenizer.h"

#include <QRegularExpression>

namespace attn {

// GPT-2's word split, as Hugging Face's ByteLevel pre-tokenizer does it:
// 1. with addPrefixSpace, a text that does not start with ' ' gets one, so its first word is
//    spelt like every other ("Ġhello");
// 2. the GPT-2 pattern cuts the text into contractions, letter runs, digit runs, runs of other
//    visible characters (each optionally led by one space) and white space, where a run of white
//    space before a word leaves its last space to that word;
// 3. each word is written as its UTF-8 bytes in the byte-level alphabet (ByteLevelAlphabet), so
//    no character is ever unknown; a U+FEFF byte-order mark is a character like any other.
class ByteLevelPreTokenizer : public PreTokenizer {
public:
    ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex);
    QList<NormalizedText> split(const NormalizedText& text) const override;
    bool byteLevel() const override { return true; }

    bool addPrefixSpace() const { return m_addPrefixSpace; }

private:
    bool m_addPrefixSpace;
    bool m_useRegex;
    QRegularExpression m_pattern;
};

}  // namespace attn
