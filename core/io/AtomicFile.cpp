#include "core/io/AtomicFile.h"

#include <QFileInfo>
#include <QSaveFile>

namespace attn {

Status AtomicFile::write(const QString& path, const QByteArray& bytes)
{
    const QString name = QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot be written (%2)").arg(name, file.errorString())};
    if (file.write(bytes) != bytes.size() || !file.commit())
        return Error{QStringLiteral("%1: cannot be written (%2)").arg(name, file.errorString())};
    return {};
}

}  // namespace attn
