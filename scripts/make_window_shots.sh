#!/usr/bin/env bash
# Makes the window's pictures of docs/window.md: All heads, Compare, Lines, Lens, Attribution, Ablation
# and Generate (12 greedy tokens, at step 7) with a small GPT-2 open, at 1400 x 900, 1000 x 700 and the
# window's minimum size, under the light palette and a dark one (Fusion with Breeze Dark's colours),
# into docs/images/window-<tab>-<size>-<light|dark>.png.
#   scripts/make_window_shots.sh [build-dir]
# The window is the real MainWindow, driven by the test suite test_window_palette (which checks
# the dark palette and, with ATTENTION_WINDOW_SHOTS set, saves these pictures). Headless: works
# with no display (QT_QPA_PLATFORM=offscreen), with the tests' pinned fonts.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --parallel 2 --target ui_tests attention-lab
out=docs/images
mkdir -p "$out"
ATTENTION_WINDOW_SHOTS="$PWD/$out" ATTENTION_SOURCE_DIR="$PWD" ATTENTION_LAB_EXE="$PWD/$build/app/attention-lab" \
  FONTCONFIG_FILE="$PWD/tests/support/fonts.conf" QT_QPA_PLATFORM=offscreen \
  "$build/tests/ui/ui_tests" test_window_palette
ls "$out"/window-{grid,compare,lines,generate}-{1400x900,1000x700,minimum}-{light,dark}.png
