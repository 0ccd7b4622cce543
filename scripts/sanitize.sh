#!/usr/bin/env bash
# Builds the whole test suite with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
# (RelWithDebInfo, the same compiler and -march=native code paths as the release build) and runs
# it with CTest. Any finding fails its test: ASan and UBSan stop the process at the first report
# (-fno-sanitize-recover, halt_on_error), LeakSanitizer fails it at exit. Leak reports from
# uninstrumented libraries are suppressed in scripts/sanitizers/lsan.supp, each with its reason.
# Qt, QuaZip and zlib are not instrumented: errors inside them are only seen where our code
# passes them bad memory.
#   scripts/sanitize.sh [CTEST ARGS...]    e.g. scripts/sanitize.sh -R test_npy
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ccache-env.sh
sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTENTION_LAB_NATIVE=ON \
  -DCMAKE_CXX_FLAGS="$sanitizers" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DATTENTION_LAB_BENCHMARKS=OFF \
  "${launcher[@]}" >/dev/null
cmake --build build-asan --parallel "$(nproc)"

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0"
QT_QPA_PLATFORM=offscreen ctest --test-dir build-asan --output-on-failure --parallel "${CTEST_PARALLEL_LEVEL:-$(nproc)}" "$@"
