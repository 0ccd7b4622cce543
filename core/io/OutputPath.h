#pragma once

#include "core/base/Result.h"

#include <QString>
#include <QStringList>

namespace attn {

// Where an output file is about to be written, checked before anything is computed or written,
// so a bad path leaves nothing behind: a known extension (when extensions are given: lower case,
// without the dot), a directory that exists and is a directory, and a path that is not itself a
// directory. The one check for every output (command line, exports, the window's files); its
// messages start with the path: "out.bmp: unknown extension '.bmp' (expected .png, .svg or .pdf)".
class OutputPath {
public:
    static Status check(const QString& path, const QStringList& extensions = {});
};

}  // namespace attn
