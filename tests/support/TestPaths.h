#pragma once

// Where the tests find the checkout and the program: given at run time by CTest's environment
// (tests/CMakeLists.txt), not compiled in, so the test objects are the same in every checkout
// and ccache serves another clone's build. Run by hand, set them as CTest does:
//   ATTENTION_SOURCE_DIR=$PWD ATTENTION_LAB_EXE=$PWD/build/app/attention-lab build/tests/core/core_tests test_npy
// A missing variable stops the executable with one error line naming it.

#include <QString>

namespace attn::testing {

// The value of an environment variable CTest sets for the tests; exits with an error if unset.
QString requiredEnvironment(const char* name);

// The checkout's root (ATTENTION_SOURCE_DIR), and a path inside it.
QString sourceDir();
QString sourcePath(const char* relative);
// tests/fixtures/ of the checkout, and a path inside it.
QString fixturesPath(const char* relative);
// The program the command-line tests drive (ATTENTION_LAB_EXE).
QString programPath();

}  // namespace attn::testing
