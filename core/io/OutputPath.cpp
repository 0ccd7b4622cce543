#include "core/io/OutputPath.h"

#include <QFileInfo>

namespace attn {
namespace {

// {"png", "svg", "pdf"} -> ".png, .svg or .pdf"
QString listed(const QStringList& extensions)
{
    QStringList dotted;
    for (const QString& extension : extensions)
        dotted.append(QLatin1Char('.') + extension);
    const QString last = dotted.takeLast();
    return dotted.isEmpty() ? last : QStringLiteral("%1 or %2").arg(dotted.join(QStringLiteral(", ")), last);
}

}  // namespace

Status OutputPath::check(const QString& path, const QStringList& extensions)
{
    if (path.isEmpty())
        return Error{QStringLiteral("the file name is empty")};
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    if (!extensions.isEmpty() && !extensions.contains(suffix))
        return Error{QStringLiteral("%1: unknown extension %2 (expected %3)")
                         .arg(path,
                              suffix.isEmpty() ? QStringLiteral("(none)") : QStringLiteral("'.%1'").arg(info.suffix()),
                              listed(extensions))};
    const QFileInfo directory(info.absolutePath());
    if (!directory.exists())
        return Error{QStringLiteral("%1: the directory %2 does not exist").arg(path, directory.filePath())};
    if (!directory.isDir())
        return Error{QStringLiteral("%1: %2 is not a directory").arg(path, directory.filePath())};
    if (info.isDir())
        return Error{QStringLiteral("%1: is a directory").arg(path)};
    return {};
}

}  // namespace attn
