#!/usr/bin/env bash
# The GTK 3 module in mousepad: time from Shift+F10 (sent through XTest) to
# the popup menu's window mapped on the X server, with and without the
# module and over the module's floor in the same run, alternating; the
# first menu after a SIGSTOP of menubusd and the later ones while it stays
# stopped; and the module's added resident memory per app.
#
#   bench/desktop/gtk-menu.sh [-n SAMPLES] [--rss-runs N] [--settle SECONDS] [--no-build]
#
# Builds menubusd and menubus-cli (release, the bundled providers) and the module (make
# shims), starts a private dbus-daemon whose configuration has a service
# directory, declares the bundled providers in a temp XDG_DATA_HOME, starts
# menubusd, and runs bench/desktop/gtk-menu.py under xvfb-run -a: three mousepads
# (without MenuBus, with the module, the floor), SAMPLES menus each per case:
# menubusd running (after one unmeasured menu), the first menu after a
# SIGSTOP (SAMPLES stops, each after a menu with menubusd answering), later
# menus while stopped (after one unmeasured); then N fresh pairs for VmRSS
# after one menu. Prints the versions, commit, date and load average, a
# markdown table of medians with the differences in ms (with − without,
# with − floor) and the ratio, and the popups' heights (taller where
# MenuBus's items are in the menu when it is mapped).
# A third mousepad is the floor: the module built with MENUBUS_BENCH_REPLAY
# draws the same items in every menu without asking menubusd, so what GTK
# takes for the items themselves is told apart from the D-Bus calls.
# Without a built module the "with" column is mousepad with GTK_MODULES set
# to a module GTK cannot find. Installs nothing; stops everything it started.
set -euo pipefail

SAMPLES=30
RSS_RUNS=5
# Seconds between a selection change and the menu key: 0.15 is a person's
# pause, past the module's read-ahead (100 ms); 0.02 is faster than it.
SETTLE=0.15
BUILD=1
BUS_LIFETIME=900
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        --rss-runs) RSS_RUNS="${2:?--rss-runs needs a value}"; shift 2 ;;
        --settle) SETTLE="${2:?--settle needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gtk-menu.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=desktop-lib.sh
. "$ROOT/bench/desktop/desktop-lib.sh"
desktop_start gtk-menu.sh /usr/bin/mousepad
make_shims() { make shims || echo "gtk-menu.sh: make shims failed; measuring without a module" >&2; }
desktop_build gtk-menu.sh "the GTK 3 module" make_shims
GTK_PATH_DIR="$ROOT/.build/shims/gtk3"
MODULE_NOTE=""
FLOOR=()
if [ ! -f "$GTK_PATH_DIR/modules/libmenubus.so" ]; then
    MODULE_NOTE="no module at $GTK_PATH_DIR/modules/libmenubus.so (make shims): \"with\" is GTK_MODULES=menubus unresolved"
elif make -s SHIMS_BUILD="$TMP/floor" CPPFLAGS=-DMENUBUS_BENCH_REPLAY "$TMP/floor/gtk3/modules/libmenubus.so" >"$TMP/floor.log" 2>&1; then
    # The floor: the same module replaying its first menu's items, no D-Bus.
    FLOOR=(--floor-gtk-path "$TMP/floor/gtk3")
else
    MODULE_NOTE="the floor's module did not build: $(tail -n 3 "$TMP/floor.log")"
fi

desktop_start_menubusd gtk-menu.sh

echo "measuring: $SAMPLES menus per app and case, $RSS_RUNS pairs for memory..." >&2
desktop_measure gtk-menu.py --samples "$SAMPLES" --rss-runs "$RSS_RUNS" --settle "$SETTLE" --gtk-path "$GTK_PATH_DIR" \
    "${FLOOR[@]}" --menubusd-pid "$DAEMON_PID"

# md CASE LABEL: the median of a case's numbers for one app, or nothing when there are none.
md() {
    local v
    v=$(values "$1-$2" || true)
    if [ -n "$v" ]; then echo "$v" | median; fi
}
row() {
    # row TITLE CASE: medians without, with, floor; with - without; with - floor; with / without.
    local without with floor
    without=$(md "$2" without); with=$(md "$2" with); floor=$(md "$2" floor)
    awk -v t="$1" -v n="$SAMPLES" -v a="$without" -v b="$with" -v c="$floor" 'BEGIN {
        f = (c == "") ? "–" : sprintf("%.1f", c)
        d = (c == "") ? "–" : sprintf("%+.1f", b - c)
        printf "| %s | %d | %.1f | %.1f | %s | %+.1f | %s | %.2fx |\n", t, n, a, b, f, b - a, d, b / a }'
}

desktop_header "mousepad $(package_version mousepad), GTK $(package_version libgtk-3-0)"
echo
echo "| Shift+F10 to the popup mapped, ms | samples | without MenuBus, median | with the module, median | floor, median | with − without | with − floor | with / without |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
row "menubusd running" running
row "menubusd stopped (SIGSTOP): the first menu after the stop" first-after-stop
row "menubusd stopped (SIGSTOP): later menus" stopped
echo
echo "The floor: the same module built with MENUBUS_BENCH_REPLAY, drawing its first menu's items again in every menu without D-Bus."
echo "The first menu after the stop: $SAMPLES stops, each after one menu of each app with menubusd answering."
echo
echo "| popup height, median px | without MenuBus | with the module | floor |"
echo "| --- | ---: | ---: | ---: |"
for pair in "menubusd running:running-height" "first menu after the stop:first-after-stop-height" "later menus, stopped:stopped-height"; do
    heights=""
    for label in without with floor; do heights="$heights | $(md "${pair#*:}" "$label" | awk '{printf "%.0f", $1}')"; done
    echo "| ${pair%%:*}$heights |"
done
echo
rss_without=$(values rss-without | median)
rss_with=$(values rss-with | median)
echo "| mousepad after one menu | runs | without module, median | with module, median | added |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -v n="$RSS_RUNS" -v a="$rss_without" -v b="$rss_with" \
    'BEGIN {printf "| VmRSS | %d | %.1f MiB | %.1f MiB | %+.1f MiB (%.2fx) |\n", n, a / 1024, b / 1024, (b - a) / 1024, b / a}'
loaded=$(grep '^module-loaded ' "$TMP/out" | cut -d' ' -f2- || true)
echo
echo "libmenubus.so mapped: $loaded"
[ -n "$MODULE_NOTE" ] && echo "$MODULE_NOTE"
desktop_menubusd_warnings
exit 0
