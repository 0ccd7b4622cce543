#pragma once

#include "core/text/Token.h"

namespace attn {

// Splits a sentence into words and punctuation, Unicode-aware:
// - a word is a run of letters, digits and combining marks (accents stay in their word),
//   with inner apostrophes kept ("don't");
// - every other visible grapheme cluster (punctuation, symbols, emoji with modifiers) is a token;
// - Han, Hiragana and Katakana have no spaces between words, so each of their characters
//   is a token of its own;
// - white space separates tokens and is never one.
// Each token keeps its range in the sentence so a view can highlight it.
class WordSplitter {
public:
    static TokenList split(const QString& sentence);
};

}  // namespace attn
