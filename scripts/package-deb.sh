#!/usr/bin/env bash
# Builds the Debian package of attention-lab, build-deb/attention-lab_<version>-1_<arch>.deb:
#   scripts/package-deb.sh [more cmake options, e.g. -DATTENTION_LAB_HOMEPAGE=https://...]
# The build needs the packages scripts/bootstrap.sh installs; the packaging tools that are
# missing are installed here (dpkg-shlibdeps computes the package's Depends from the libraries the
# program links). The package is built in build-deb/ for any x86-64 processor, not for this one
# (-march=native, as the development build in build/ is), and without the tests.
# Install the result with:  sudo apt install ./build-deb/attention-lab_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-deb

packages=(dpkg-dev file help2man desktop-file-utils appstream)
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

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTENTION_LAB_NATIVE=OFF -DATTENTION_LAB_TESTS=OFF \
  "${launcher[@]}" "$@" >/dev/null
cmake --build "$build" --parallel "$(nproc)"

# What a software centre and a menu read, checked before it goes into the package.
app_id=$(sed -n 's/^set(ATTENTION_LAB_APP_ID "\(.*\)")$/\1/p' CMakeLists.txt)
desktop-file-validate "packaging/$app_id.desktop"
appstreamcli validate --no-net --strict "$build/packaging/$app_id.metainfo.xml" >/dev/null

rm -f "$build"/attention-lab_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/attention-lab_*.deb)
dpkg-deb --info "$deb"
echo "$deb"
