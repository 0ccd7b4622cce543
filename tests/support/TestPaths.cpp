#include "tests/support/TestPaths.h"

#include <cstdio>
#include <cstdlib>

namespace attn::testing {

QString requiredEnvironment(const char* name)
{
    const QString value = qEnvironmentVariable(name);
    if (value.isEmpty()) {
        std::fprintf(stderr,
                     "error: the environment variable %s is not set: run the tests through ctest, "
                     "or set it as tests/CMakeLists.txt does\n",
                     name);
        std::exit(2);
    }
    return value;
}

QString sourceDir()
{
    static const QString dir = requiredEnvironment("ATTENTION_SOURCE_DIR");
    return dir;
}

QString sourcePath(const char* relative)
{
    return sourceDir() + u'/' + QString::fromUtf8(relative);
}

QString fixturesPath(const char* relative)
{
    return sourceDir() + QStringLiteral("/tests/fixtures/") + QString::fromUtf8(relative);
}

QString programPath()
{
    static const QString path = requiredEnvironment("ATTENTION_LAB_EXE");
    return path;
}

}  // namespace attn::testing
