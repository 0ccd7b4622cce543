#!/usr/bin/env bash
# Runs the kernel suites on every build of the engine this processor can run, each forced on.
# build/ is compiled for its own processor (-march=native), so it tests one path only; this
# configures build-hwcaps/ as a .deb with runtime dispatch is built (scripts/package-deb.sh
# -DATTENTION_LAB_HWCAPS=ON: the engine for baseline x86-64, x86-64-v3 and x86-64-v4, glibc
# choosing), builds core_tests, and runs the suites' variants that force each build through the
# dynamic loader (<suite>@x86-64, @x86-64-v3, @x86-64-v4, and @no-tiles on a processor with AMX;
# tests/core/CMakeLists.txt). CI runs it (.ci/run).
#   scripts/kernel_paths.sh [CTEST ARGS...]    e.g. scripts/kernel_paths.sh -R test_linear_columns
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ccache-env.sh
cmake -S . -B build-hwcaps -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTENTION_LAB_HWCAPS=ON \
  -DATTENTION_LAB_NATIVE=OFF -DATTENTION_LAB_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
cmake --build build-hwcaps --parallel "$(nproc)" --target core_tests
ctest --test-dir build-hwcaps -R '@' --output-on-failure --parallel "${CTEST_PARALLEL_LEVEL:-$(nproc)}" "$@"
