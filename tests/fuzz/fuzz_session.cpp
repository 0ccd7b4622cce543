// libFuzzer target: a session file through Session::fromJson, as --session and File › Open
// session read it (after Session::read's size limit).

#include "core/io/Session.h"
#include "tests/fuzz/FuzzSupport.h"

#include <QDir>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    auto session = Session::fromJson(fuzz::bytesOf(data, size), QDir::tempPath());
    if (!session) {
        fuzz::checkPrintedMessage(session.error());
        return 0;
    }
    // What was accepted writes back to a file that reads again, and every value is one of the
    // table's options.
    FUZZ_CHECK(Session::fromJson(session->toJson(), QDir::tempPath()).ok());
    const QStringList arguments = session->arguments();
    for (const QString& argument : arguments)
        if (argument.startsWith(QLatin1String("--")))
            FUZZ_CHECK(SessionFields::findOption(QStringView(argument).mid(2)) != nullptr);
    return 0;
}
