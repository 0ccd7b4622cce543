#pragma once

#include "core/text/SubwordEncoding.h"

namespace attn {

// Last step of a subword tokenizer: adds the special tokens a model expects around a text
// ([CLS] … [SEP]) and adjusts offsets. Added tokens get ids and ranges only: the tokenizer
// spells every token from its id afterwards, and marks the special ones.
class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    virtual void process(SubwordEncoding& encoding, bool addSpecialTokens) const = 0;
    // The ids this step adds, so the tokenizer can count them as special.
    virtual QList<int> specialIds() const { return {}; }
};

}  // namespace attn
