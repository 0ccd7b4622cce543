#pragma once

// Reading the normalizer and pre-tokenizer of tokenizer.json (TokenizerJsonReader.h reads the
// rest). Each step is an object with a "type":
// normalizers
//   {"type": "BertNormalizer", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase"}
//   {"type": "NFC"} / "NFD" / "NFKC" / "NFKD" / "Lowercase"
//   {"type": "Replace", "pattern": {"String": s} | {"Regex": r}, "content": s}
//   {"type": "Prepend", "prepend": s}
//   {"type": "Sequence", "normalizers": [step, …]}
// pre-tokenizers
//   {"type": "BertPreTokenizer"}
//   {"type": "ByteLevel", "add_prefix_space", "use_regex", "trim_offsets"}
//   {"type": "Split", "pattern": {"String": s} | {"Regex": r}, "behavior": "Isolated" | "Removed" |
//    "MergedWithPrevious" | "MergedWithNext" | "Contiguous", "invert"}
//   {"type": "Metaspace", "replacement", "prepend_scheme": "always" | "first" | "never", "split"}
//    (older files: "add_prefix_space" true/false for always/never, and "str_rep")
//   {"type": "Digits", "individual_digits"}
//   {"type": "Sequence", "pretokenizers": [step, …]}
// Regular expressions are Oniguruma's (OnigPattern.h). Any other type is refused, naming it.
// `path` names the step in errors ("normalizer", "pre_tokenizer.pretokenizers[1]").

#include "core/base/Result.h"
#include "core/text/PreTokenizer.h"
#include "core/text/TextNormalizer.h"

#include <QJsonValue>

#include <memory>

namespace attn {

class TokenizerJsonSteps {
public:
    static Result<std::unique_ptr<TextNormalizer>> normalizer(const QJsonValue& value, const QString& path);
    static Result<std::unique_ptr<PreTokenizer>> preTokenizer(const QJsonValue& value, const QString& path);

    // Helpers the other readers of tokenizer.json share.
    static Error fail(const QString& problem);  // "tokenizer.json: " + problem
    // The component's "type", or an error when it is not an object with a string "type".
    static Result<QString> componentType(const QJsonValue& value, const QString& path);
    static Error unsupported(const QString& path, const QString& type);
};

}  // namespace attn
