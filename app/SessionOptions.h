#pragma once

#include "core/base/Result.h"
#include "core/io/Session.h"

#include <QStringList>

class QCommandLineParser;

namespace attn {

// --session FILE.json and --save-session FILE.json (docs/sessions.md). A session's values are
// command-line options (SessionFields' table): --session puts the file's before those given, and
// an option given replaces the file's value of it (and of the options it stands for instead, as
// --token-ids does for --sentence). --save-session records every option of the table given, on
// the command line or by --session, once the run succeeded.
class SessionCommandLine {
public:
    static const char* const kValued[];
    // The options that only change pictures: refused with --json alone, and so not taken from a
    // session file then.
    static const char* const kPictureOnly[];

    // `arguments` with --session FILE taken out and the file's values put before the others.
    // Refusals are one line: "--session FILE: <why>".
    static Result<QStringList> expanded(const QStringList& arguments, const QCommandLineParser& parser);
    // What --save-session writes: the options of the table that `parser` holds. Checks the path.
    static Result<Session> toSave(const QCommandLineParser& parser);
};

}  // namespace attn
