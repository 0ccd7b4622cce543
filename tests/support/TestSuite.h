#pragma once

// One executable per test folder holds many Qt Test suites; CTest runs each suite as its own
// test: `<folder>_tests <suite> [Qt Test arguments...]` (tests/support/TestRunner.cpp). A suite's
// file ends with REGISTER_TEST_SUITE(Class, Application) where QTEST_MAIN would stand, naming the
// application object the suite runs under (QApplication, QGuiApplication or QCoreApplication,
// the one QTEST_MAIN or QTEST_GUILESS_MAIN gave it) or NoApplication. The suite's name is its
// file's name without ".cpp".

#include <QTest>

#if defined(QT_WIDGETS_LIB)
#include <QApplication>
#endif
#if defined(QT_GUI_LIB)
#include <QGuiApplication>
#endif

#include <functional>
#include <string_view>

namespace attn::testing {

using SuiteRun = std::function<int(int argc, char** argv)>;

// Adds a suite to the executable's table; returns true (so it can initialise a static).
bool registerTestSuite(std::string_view name, SuiteRun run);

// "test_npy.cpp" -> "test_npy".
constexpr std::string_view suiteNameOf(std::string_view file_name)
{
    return file_name.substr(0, file_name.rfind('.'));
}

}  // namespace attn::testing

// For the suites that QTEST_APPLESS_MAIN ran: no application object.
struct NoApplication {
    NoApplication(int&, char**) {}
    void setAttribute(Qt::ApplicationAttribute, bool) {}
};

namespace attn::testing {

// What QTEST_MAIN's main did: initMain(), the application (at 96 dpi), the suite, qExec.
template <typename Suite, typename Application, typename... SuiteArguments>
int runTestSuite(int argc, char** argv, SuiteArguments... arguments)
{
    QTest::Internal::callInitMain<Suite>();
    Application application(argc, argv);
    application.setAttribute(Qt::AA_Use96Dpi, true);
    Suite suite(arguments...);
    return QTest::qExec(&suite, argc, argv);
}

}  // namespace attn::testing

#define REGISTER_TEST_SUITE(Suite, Application)                              \
    static const bool registered_##Suite = attn::testing::registerTestSuite( \
        attn::testing::suiteNameOf(__FILE_NAME__),                           \
        [](int argc, char** argv) { return attn::testing::runTestSuite<Suite, Application>(argc, argv); });
