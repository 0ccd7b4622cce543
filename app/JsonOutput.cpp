#include "app/JsonOutput.h"

#include <QFile>
#include <QSaveFile>

namespace attn {

Status JsonOutput::write(const QString& path, QTextStream& out, const std::function<Status(QIODevice&)>& document)
{
    if (path == u"-") {
        out.flush();  // what the program printed before comes first
        QFile stdout_file;
        if (!stdout_file.open(stdout, QIODevice::WriteOnly))
            return Error{QStringLiteral("--json -: cannot write to standard output")};
        if (Status s = document(stdout_file); !s)
            return Error{QStringLiteral("--json -: %1").arg(s.error())};
        if (!stdout_file.flush())
            return Error{QStringLiteral("--json -: cannot write to standard output")};
        return {};
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("--json %1: cannot write: %2").arg(path, file.errorString())};
    if (Status s = document(file); !s)
        return Error{QStringLiteral("--json %1: %2").arg(path, s.error())};
    if (!file.commit())
        return Error{QStringLiteral("--json %1: cannot write: %2").arg(path, file.errorString())};
    return {};
}

}  // namespace attn
