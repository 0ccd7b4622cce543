// The main of every test-folder executable: runs the suite named by the first argument with the
// rest as Qt Test's arguments, e.g. `core_tests test_npy -v2 readsNumpysOwnFile`.

#include "tests/support/TestSuite.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace attn::testing {

namespace {

std::map<std::string, SuiteRun, std::less<>>& suites()
{
    static std::map<std::string, SuiteRun, std::less<>> table;
    return table;
}

}  // namespace

bool registerTestSuite(std::string_view name, SuiteRun run)
{
    if (!suites().emplace(std::string(name), std::move(run)).second) {
        std::fprintf(stderr, "error: two test suites are named %.*s\n", int(name.size()), name.data());
        std::abort();
    }
    return true;
}

}  // namespace attn::testing

int main(int argc, char** argv)
{
    using attn::testing::suites;
    const auto suite = argc >= 2 ? suites().find(std::string_view(argv[1])) : suites().end();
    if (suite == suites().end()) {
        if (argc >= 2)
            std::fprintf(stderr, "error: no test suite named %s in %s\n", argv[1], argv[0]);
        std::fprintf(stderr, "usage: %s SUITE [Qt Test arguments...]\nsuites:\n", argv[0]);
        for (const auto& [name, run] : suites())
            std::fprintf(stderr, "  %s\n", name.c_str());
        return 2;
    }
    // Qt Test sees the program and its own arguments, as if the suite were the executable.
    std::vector<char*> arguments{argv[0]};
    arguments.insert(arguments.end(), argv + 2, argv + argc);
    arguments.push_back(nullptr);
    return suite->second(int(arguments.size()) - 1, arguments.data());
}
