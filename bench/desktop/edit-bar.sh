#!/usr/bin/env bash
# The GTK 3 module's edit bar in mousepad: time from a double-click's second
# release (sent through XTest) to the bar drawn on screen (pixels read back
# from the X server), with the core's wait (MB_BAR_WAIT_MS, 40 ms) inside;
# and, alternating in the same mousepad, Shift+F10 to its context menu
# mapped, as a baseline of the same run.
#
#   bench/desktop/edit-bar.sh [-n SAMPLES] [--settle SECONDS] [--no-build]
#
# Builds menubusd and menubus-cli (release, the bundled providers) and the
# module (make shims), starts a private dbus-daemon whose configuration has
# a service directory, declares the bundled providers, starts menubusd, and
# runs bench/desktop/edit-bar.py under xvfb-run -a. Prints the versions,
# commit, date and load average and a markdown table of medians.
# Installs nothing; stops everything it started.
set -euo pipefail

SAMPLES=30
SETTLE=0.3
BUILD=1
BUS_LIFETIME=900
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        --settle) SETTLE="${2:?--settle needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "edit-bar.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
for tool in /usr/bin/mousepad /usr/bin/xvfb-run /usr/bin/xdotool; do
    [ -x "$tool" ] || { echo "edit-bar.sh: no $tool; run scripts/setup" >&2; exit 1; }
done
/usr/bin/python3 -c 'import Xlib' 2>/dev/null || { echo "edit-bar.sh: no python3-xlib; run scripts/setup" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-edit-bar.XXXXXX")"
JOB_PID=""
BUS_PID=""
DAEMON_PID=""
# shellcheck source=lib.sh
. "$ROOT/bench/lib/lib.sh"
cleanup() {
    set +e
    stop "$JOB_PID"
    stop "$DAEMON_PID"
    stop "$BUS_PID"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$BUILD" = 1 ]; then
    echo "building menubusd, menubus-cli (release) and the GTK 3 module..." >&2
    { swift build -c release --product menubusd && swift build -c release --product menubus-cli && make shims; } \
        >"$TMP/build.log" 2>&1 || { tail -n 30 "$TMP/build.log" >&2; exit 1; }
fi
BIN="$(swift build -c release --show-bin-path)"
[ -x "$BIN/menubusd" ] || { echo "edit-bar.sh: no release menubusd at $BIN" >&2; exit 1; }
GTK_PATH_DIR="$ROOT/.build/shims/gtk3"
[ -f "$GTK_PATH_DIR/modules/libmenubus.so" ] || { echo "edit-bar.sh: no module (make shims)" >&2; exit 1; }

start_menubusd_with_bundled_providers edit-bar.sh
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

echo "measuring: $SAMPLES bars and $SAMPLES menus..." >&2
TMPDIR="$TMP" job xvfb-run -a -s "-screen 0 1024x768x24" /usr/bin/python3 "$ROOT/bench/desktop/edit-bar.py" \
    --samples "$SAMPLES" --settle "$SETTLE" --gtk-path "$GTK_PATH_DIR" \
    >"$TMP/out" 2>"$TMP/helper.log" || { tail -n 20 "$TMP/helper.log" >&2; exit 1; }

bar=$(values bar | median)
menu=$(values menu | median)
echo "mousepad $(dpkg-query -W -f '${Version}' mousepad 2>/dev/null), GTK $(dpkg-query -W -f '${Version}' libgtk-3-0 2>/dev/null)," \
    "commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- shims 2>/dev/null || echo ' (shims/ changed)')," \
    "$(date -u '+%Y-%m-%d %H:%M') UTC, load average $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "| mousepad, the GTK 3 module | samples | median, ms | min | max |"
echo "| --- | ---: | ---: | ---: | ---: |"
for pair in "double-click's second release to the edit bar drawn:bar" "Shift+F10 to the context menu mapped (baseline):menu"; do
    v=$(values "${pair#*:}")
    echo "$v" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk -v t="${pair%%:*}" -v m="$(echo "$v" | median)" \
        '{a[NR]=$1} END {printf "| %s | %d | %.1f | %.1f | %.1f |\n", t, NR, m, a[1], a[NR]}'
done
awk -v b="$bar" -v m="$menu" 'BEGIN {printf "\nbar / menu: %.2fx; of the bar'"'"'s median, 40 ms is the core'"'"'s wait (MB_BAR_WAIT_MS), %.1f ms the rest.\n", b / m, b - 40}'
echo "The first bar (not among the samples): $(values first-bar) ms."
if grep -q '^<4>\|^warning' "$TMP/menubusd.log"; then
    echo "menubusd warned:" >&2
    grep '^<4>\|^warning' "$TMP/menubusd.log" >&2
fi
exit 0
