#pragma once

#include "core/pipeline/AttentionResult.h"

#include <QByteArray>

namespace attn {

// The --json document of the command-line contract.
class JsonReport {
public:
    static QByteArray build(const AttentionResult& result);
};

}  // namespace attn
