#pragma once

#include "AttentionResult.h"

#include <QByteArray>

namespace attn {

// The --json document of the command-line contract.
class JsonReport {
public:
    static QByteArray build(const AttentionResult& result);
};

}  // namespace attn
