#pragma once

#include "core/text/NormalizedText.h"

#include <QList>

namespace attn {

// Second step of a subword tokenizer: cuts normalised text into words, which the model then
// splits into subword tokens independently of each other. A pre-tokenizer may also rewrite the
// words (byte-level BPE spells each byte as one printable character).
class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    virtual QList<NormalizedText> split(const NormalizedText& text) const = 0;
    // Whether the words come out in the byte-level alphabet (ByteLevelAlphabet), so the tokens'
    // spellings are bytes ("Ġcat") rather than text.
    virtual bool byteLevel() const { return false; }
};

}  // namespace attn
