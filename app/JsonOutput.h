#pragma once

#include "core/base/Result.h"

#include <QIODevice>
#include <QString>
#include <QTextStream>

#include <functional>

namespace attn {

// Where --json goes: standard output ("-"), or the file, written atomically (QSaveFile: a write
// that fails leaves nothing behind). `document` writes the JSON to the device it is given, as it
// is made; its error follows "--json PATH: " in the message.
class JsonOutput {
public:
    static Status write(const QString& path, QTextStream& out, const std::function<Status(QIODevice&)>& document);
};

}  // namespace attn
