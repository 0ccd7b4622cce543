#pragma once

#include "core/base/Result.h"

#include <QByteArray>
#include <QString>

namespace attn {

// Bytes written to `path` atomically (a temporary file renamed into place): on failure nothing is
// left behind. Messages start with the file name.
class AtomicFile {
public:
    static Status write(const QString& path, const QByteArray& bytes);
};

}  // namespace attn
