#!/usr/bin/env bash
# Installs the Debian package on a fresh minimal Debian 12 and starts the program the ways a user
# does, to show that the package's Depends are complete and its menu entry works:
#   sudo scripts/try-deb-in-chroot.sh build-deb/attention-lab_*.deb [OUT_DIR]
# As root, with debootstrap installed and the Debian mirror that apt uses here reachable. A minimal
# bookworm (debootstrap --variant=minbase) is made once in /var/tmp/attention-lab-bookworm and
# each try runs in a throw-away copy of it, so every try starts clean. In it: apt installs the
# package with its Depends only (no Recommends), then `attention-lab --version`, a --json run, an
# offscreen --screenshot, and the menu entry started with gtk-launch on an X server (Xvfb), whose
# window must show up with its WM_CLASS and icon. The screenshot is copied to OUT_DIR (default
# the current folder).
set -euo pipefail
deb=$(realpath "${1:?usage: try-deb-in-chroot.sh PACKAGE.deb [OUT_DIR]}")
out=$(realpath "${2:-.}")
[ "$(id -u)" -eq 0 ] || { echo "error: run as root (debootstrap and chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "error: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }

base=/var/tmp/attention-lab-bookworm
if [ ! -x "$base/usr/bin/apt-get" ]; then
  # The mirror apt is configured with here (deb822 sources first, then sources.list).
  mirror=$(sed -n 's/^URIs: *\([^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  mirror=${mirror:-http://deb.debian.org/debian}
  echo "debootstrap bookworm from $mirror into $base"
  rm -rf "$base.partial"
  debootstrap --variant=minbase bookworm "$base.partial" "$mirror" >/dev/null
  mv "$base.partial" "$base"
fi

root=$(mktemp -d /var/tmp/attention-lab-try.XXXXXX)
cleanup() {
  # Processes this try started inside the copy (the program, Xvfb), by their ids.
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && kill "${proc#/proc/}" 2>/dev/null || true
  done
  umount "$root/dev/pts" "$root/proc" 2>/dev/null || true
  rm -rf "$root"
}
trap cleanup EXIT
cp -a "$base/." "$root/"
mount -t proc proc "$root/proc"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
cp "$deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive DEB="/tmp/$(basename "$deb")" /bin/bash -euo pipefail -s <<'IN_CHROOT'
apt-get update -qq
echo "== apt-get install --no-install-recommends $DEB"
apt-get install -y -qq --no-install-recommends "$DEB" >/tmp/apt.log || { cat /tmp/apt.log; exit 1; }
dpkg-query -W -f='${Package} ${Version}\n  Depends: ${Depends}\n' attention-lab

echo "== attention-lab --version"
attention-lab --version
echo "== attention-lab --json - (first bytes)"
attention-lab --sentence "The cat sat on the rug" --json - | head -c 120; echo
echo "== QT_QPA_PLATFORM=offscreen attention-lab --screenshot /tmp/window.png"
QT_QPA_PLATFORM=offscreen attention-lab --screenshot /tmp/window.png --tab grid
ls -l /tmp/window.png

# The menu entry, started the way a desktop starts it. The X server and gtk-launch are installed
# only now, after the program has run on its Depends alone.
app=$(basename /usr/share/applications/*.desktop .desktop)
echo "== gtk-launch $app ($(grep '^Exec=' "/usr/share/applications/$app.desktop"))"
apt-get install -y -qq --no-install-recommends xvfb xauth libgtk-3-bin x11-utils >/tmp/apt-x.log \
  || { cat /tmp/apt-x.log; exit 1; }
cat >/tmp/launch.sh <<'LAUNCH'
set -euo pipefail
gtk-launch "$1"
window=""
for _ in $(seq 120); do
  # The main window: named and classed attention-lab (Qt's helper windows have no class).
  window=$(xwininfo -root -tree | awk '/"attention-lab": \("attention-lab"/ {print $1; exit}')
  [ -n "$window" ] && break
  sleep 0.5
done
[ -n "$window" ] || { echo "error: no attention-lab window appeared" >&2; exit 1; }
xprop -id "$window" WM_NAME WM_CLASS _NET_WM_PID
icons=$(xprop -id "$window" _NET_WM_ICON | grep -o 'Icon ([0-9]* x [0-9]*)' | tr '\n' ' ' || true)
echo "_NET_WM_ICON: ${icons:-none}"
pid=$(xprop -id "$window" _NET_WM_PID | awk '{print $3}')
kill "$pid"
[ -n "$icons" ] || { echo "error: the window has no icon" >&2; exit 1; }
LAUNCH
xvfb-run -a -s "-screen 0 1600x1000x24" bash /tmp/launch.sh "$app" 2>&1 | { grep -v '^Gtk-Message' || true; }
echo "== all good"
IN_CHROOT
cp "$root/tmp/window.png" "$out/chroot-window.png"
echo "screenshot: $out/chroot-window.png"
