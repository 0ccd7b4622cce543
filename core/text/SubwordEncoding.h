#pragma once

#include "core/text/Token.h"

#include <QList>

namespace attn {

// What a subword tokenizer makes of one text, one entry per token in every list:
// - ids: the model's input ids, as `tokenizer(text)["input_ids"]` in Hugging Face transformers;
// - tokens: each token's string as `convert_ids_to_tokens` spells it ("Ġcat", "##ing", "[CLS]"),
//   with its range in the input text in UTF-16 code units (a token added by the post-processor,
//   such as [CLS], has the empty range 0..0);
// - special: whether the id is one of the tokenizer's special tokens (`all_special_ids`).
struct SubwordEncoding {
    QList<int> ids;
    TokenList tokens;
    QList<bool> special;

    qsizetype size() const { return ids.size(); }
    bool operator==(const SubwordEncoding&) const = default;
};

}  // namespace attn
