#pragma once

#include "core/base/Result.h"

#include <QString>

#include <vector>

namespace attn {

// The ids after which a generation stops: `eos_token_id` of the folder's generation_config.json
// when that file gives it, else config.json's; an integer or a list of integers (any of them
// stops); absent or null in both: none.
class EndOfSequence {
public:
    // Refuses an unreadable or malformed generation_config.json and a value that is neither a
    // non-negative integer nor a list of them, naming the file.
    static Result<std::vector<int>> read(const QString& dir);
    // The value of one JSON document's "eos_token_id" (nullopt-like empty with found = false).
    static Result<std::vector<int>> parse(const QByteArray& json, bool& found);
};

}  // namespace attn
