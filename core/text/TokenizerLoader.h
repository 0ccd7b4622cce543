#pragma once

#include "core/base/Result.h"
#include "core/text/SubwordTokenizer.h"

#include <QString>

#include <memory>

namespace attn {

// The tokenizer of a Hugging Face model folder, as `AutoTokenizer.from_pretrained(folder)` would
// build it: from tokenizer.json when the folder has one (TokenizerJsonReader), else from
// vocab.json + merges.txt (GPT-2 style), else from vocab.txt (BERT style) (LegacyVocabReader).
// Every error is one line naming the file at fault.
Result<std::unique_ptr<SubwordTokenizer>> loadTokenizer(const QString& modelDir);

}  // namespace attn
