#include "core/model/TokenIdList.h"

#include <QRegularExpression>
#include <QStringList>

#include <limits>

namespace attn {

Result<std::vector<int>> TokenIdList::parse(const QString& text)
{
    // One comma with any white space around it, or white space alone: "1,,2" leaves an empty id.
    static const QRegularExpression separators(QStringLiteral("\\s*,\\s*|\\s+"));
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return Error{QStringLiteral("no tokens (the list is empty)")};
    std::vector<int> ids;
    // A leading or trailing comma would be an empty part: refused like any other non-number.
    for (const QString& part : trimmed.split(separators)) {
        bool ok = false;
        const qlonglong id = part.toLongLong(&ok);
        if (!ok || id < 0 || id > std::numeric_limits<int>::max() || part.startsWith(u'+'))
            return Error{QStringLiteral("expected comma-separated non-negative integers, got '%1'").arg(part)};
        ids.push_back(int(id));
    }
    return ids;
}

QString TokenIdList::format(const std::vector<int>& ids)
{
    QStringList parts;
    parts.reserve(qsizetype(ids.size()));
    for (int id : ids)
        parts.append(QString::number(id));
    return parts.join(u',');
}

}  // namespace attn
