#pragma once

// Builds a tokenizer from the files model folders had before tokenizer.json, the way
// transformers converts them:
// - GPT-2 style byte-level BPE: vocab.json, a JSON object {token: id}, and merges.txt, one merge
//   "a b" per line in rank order after an optional "#version" comment line; tokenizer_config.json
//   may set add_prefix_space (default false) and the special tokens (default <|endoftext|>);
// - BERT style WordPiece: vocab.txt, one token per line, the id being the line number (a token
//   listed twice keeps its last line); tokenizer_config.json may set do_lower_case (default
//   true), strip_accents (default: as do_lower_case), tokenize_chinese_chars (default true) and
//   the special tokens ([UNK], [SEP], [PAD], [CLS], [MASK]), which must be in the vocabulary.
// special_tokens_map.json, when present, overrides the special tokens of tokenizer_config.json.

#include "core/base/Result.h"
#include "core/text/SubwordTokenizer.h"

#include <memory>

namespace attn {

class LegacyVocabReader {
public:
    static Result<std::unique_ptr<SubwordTokenizer>> readByteLevelBpe(const QString& dir);
    static Result<std::unique_ptr<SubwordTokenizer>> readWordPiece(const QString& dir);
};

}  // namespace attn
