#!/usr/bin/env bash
# Installs the Debian 12 packages attention-lab needs (only the missing ones), then configures
# and builds it in build/. Safe to run again: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake ninja-build pkg-config ccache
  qt6-base-dev qt6-svg-dev            # Qt 6 Core/Gui/Widgets/Test/PrintSupport, SVG output
  libeigen3-dev                       # the engine's matrices
  libqcustomplot-dev libqcustomplot2.1-qt6   # heatmaps
  libquazip1-qt6-dev                  # .npz (zip) weight files
  help2man                            # the man page, from --help
  desktop-file-utils appstream        # tests/install validates the .desktop file and metainfo
  librsvg2-bin poppler-utils          # tests: exported SVG and PDF drawn as viewers draw them
  fonts-dejavu-core                   # the only fonts the tests see (tests/support/fonts.conf)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

source scripts/ccache-env.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build --parallel "$(nproc)"
