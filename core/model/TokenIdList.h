#pragma once

#include "core/base/Result.h"

#include <QString>

#include <vector>

namespace attn {

// A typed list of token ids, "464, 3797 318": non-negative integers separated by commas and/or
// white space (the command line's --token-ids and the window's Token ids field). Whether an id is
// in the vocabulary, and whether the list fits the model's positions, is the model's to say
// (TransformerForward::checkInput).
class TokenIdList {
public:
    // An error says what is wrong with the text only ("no tokens (the list is empty)"); the
    // caller names where it was typed.
    static Result<std::vector<int>> parse(const QString& text);
    static QString format(const std::vector<int>& ids);  // "464,3797,318"
};

}  // namespace attn
