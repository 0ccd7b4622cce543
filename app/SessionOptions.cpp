#include "app/SessionOptions.h"

#include "core/io/OutputPath.h"

#include <QCommandLineParser>

namespace attn {

const char* const SessionCommandLine::kValued[] = {"session", "save-session", nullptr};
const char* const SessionCommandLine::kPictureOnly[] = {"color-scale",     "hide-tokens", "top-mass",
                                                        "aggregate-heads", "reduce",      nullptr};

Result<QStringList> SessionCommandLine::expanded(const QStringList& arguments, const QCommandLineParser& parser)
{
    const QString path = parser.value("session");
    auto session = Session::read(path);
    if (!session)
        return Error{QStringLiteral("--session %1: %2").arg(path, session.error())};
    const bool json_alone = parser.isSet("json") && !parser.isSet("export");
    const auto given = [&parser, json_alone](const SessionField& row) {
        if (parser.isSet(QLatin1String(row.option)))
            return true;
        if (json_alone)
            for (const char* const* picture = kPictureOnly; *picture; ++picture)
                if (qstrcmp(row.option, *picture) == 0)
                    return true;
        if (row.replaced_by)
            for (const QString& other : QString::fromLatin1(row.replaced_by).split(u'|'))
                if (parser.isSet(other))
                    return true;
        return false;
    };
    QStringList result{arguments.value(0)};
    result << session->arguments(given);
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString& argument = arguments[i];
        if (argument == u"--session" || argument == u"-session") {
            ++i;  // and its value
            continue;
        }
        if (argument.startsWith(u"--session=") || argument.startsWith(u"-session="))
            continue;
        result << argument;
    }
    return result;
}

Result<Session> SessionCommandLine::toSave(const QCommandLineParser& parser)
{
    const QString path = parser.value("save-session");
    if (Status where = OutputPath::check(path); !where)
        return Error{QStringLiteral("--save-session %1").arg(where.error())};
    Session session;
    for (const SessionField& row : SessionFields::rows()) {
        const QString option = QString::fromLatin1(row.option);
        if (!parser.isSet(option))
            continue;
        const QString value = row.type == SessionValueType::Flag ? QStringLiteral("true") : parser.value(option);
        const bool is_path = row.type == SessionValueType::File || row.type == SessionValueType::Folder;
        // A path that is not there is the run's own error (--model DIR: no such folder), said
        // before anything is saved.
        if (Status s = session.set(QString::fromLatin1(row.key), value); !s && !is_path)
            return Error{QStringLiteral("--save-session %1: --%2 %3").arg(path, option, s.error())};
    }
    return session;
}

}  // namespace attn
