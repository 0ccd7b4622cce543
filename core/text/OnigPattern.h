#pragma once

#include "core/base/Result.h"

#include <QRegularExpression>

namespace attn {

// A regular expression from tokenizer.json, written for Oniguruma (Ruby syntax), which Hugging
// Face's Rust tokenizers run, compiled for PCRE2 (QRegularExpression) so that it matches the same:
// - \s and \S mean Oniguruma's Unicode white space (U+0009–U+000D, U+0085 and the Z categories);
//   PCRE2's leave out U+0085;
// - ^ and $ match at line starts and ends, as in Ruby;
// - \p{..} classes, possessive quantifiers (?+ ++ *+), (?i:…) groups and look-arounds are the
//   same in both once Unicode properties are on.
// A \S inside a character class has no PCRE2 spelling with that white space, and is refused.
class OnigPattern {
public:
    static Result<QRegularExpression> compile(const QString& pattern);
    // A literal string, as Hugging Face's "String" patterns are escaped.
    static QRegularExpression literal(const QString& text);
};

}  // namespace attn
