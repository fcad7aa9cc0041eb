#!/usr/bin/env bash
# The Qt platform theme in featherpad: time from the Menu key (sent
# through XTest) to the popup menu's window mapped on the X server, with
# and without QT_QPA_PLATFORMTHEME=menubus in the same run, alternating;
# the first menu after a SIGSTOP of menubusd and the later ones while it
# stays stopped; and the theme's added resident memory per app.
#
#   bench/desktop/qt-menu.sh [-n SAMPLES] [--rss-runs N] [--settle SECONDS] [--no-build]
#
# Builds menubusd and menubus-cli (release, the bundled providers) and the Qt 5 theme (make
# qt5-theme), starts a private dbus-daemon whose configuration has a
# service directory, declares the bundled providers in a temp
# XDG_DATA_HOME, starts menubusd, and runs bench/desktop/qt-menu.py under
# xvfb-run -a: two featherpads, one with QT_QPA_PLATFORMTHEME unset (Qt's
# own choice, which the menubus theme wraps: under Xvfb with no desktop,
# Qt's generic theme) and one with QT_QPA_PLATFORMTHEME=menubus and
# QT_PLUGIN_PATH=.build/shims/qt5; SAMPLES menus each per case: menubusd
# running (after one unmeasured menu), the first menu after a SIGSTOP
# (SAMPLES stops, each after a menu with menubusd answering and a
# selection change), later menus while stopped (after one unmeasured);
# then N fresh pairs for VmRSS after one menu. Prints the versions,
# commit, date and load average, a markdown table of medians, ratios and
# differences in ms, the popups' heights (taller where MenuBus's items
# are in the menu) and the one unmeasured first menu of the later-menus
# case (one sample each). A third featherpad is the floor:
# the theme built with MENUBUS_BENCH_REPLAY (into a folder of its own)
# shows its first menu's items in every later menu without asking
# menubusd, so what Qt takes to draw the items is told apart from the
# theme's own cost ("theme over floor"). Installs nothing; stops
# everything it started.
set -euo pipefail

SAMPLES=30
RSS_RUNS=5
# Seconds between a selection change and the menu key: 0.15 is a person's
# pause; 0.02 is faster than any read-ahead.
SETTLE=0.15
BUILD=1
BUS_LIFETIME=900
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        --rss-runs) RSS_RUNS="${2:?--rss-runs needs a value}"; shift 2 ;;
        --settle) SETTLE="${2:?--settle needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "qt-menu.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=desktop-lib.sh
. "$ROOT/bench/desktop/desktop-lib.sh"
desktop_start qt-menu.sh /usr/bin/featherpad
desktop_build qt-menu.sh "the Qt 5 theme" make qt5-theme
PLUGIN_DIR="$ROOT/.build/shims/qt5"
[ -f "$PLUGIN_DIR/platformthemes/libmenubus.so" ] \
    || { echo "qt-menu.sh: no theme at $PLUGIN_DIR/platformthemes/libmenubus.so (make qt5-theme)" >&2; exit 1; }

FLOOR=()
FLOOR_NOTE=""
if make -s SHIMS_BUILD="$TMP/floor" CPPFLAGS=-DMENUBUS_BENCH_REPLAY "$TMP/floor/qt5/platformthemes/libmenubus.so" \
        >"$TMP/floor.log" 2>&1; then
    # The floor: the same theme replaying its first menu's items, no D-Bus.
    FLOOR=(--floor-plugin-path "$TMP/floor/qt5")
else
    FLOOR_NOTE="the floor's theme did not build: $(tail -n 3 "$TMP/floor.log")"
fi

mkdir -p "$TMP/logs"
desktop_start_menubusd qt-menu.sh

echo "measuring: $SAMPLES menus per app and case, $RSS_RUNS pairs for memory..." >&2
desktop_measure qt-menu.py --samples "$SAMPLES" --rss-runs "$RSS_RUNS" --settle "$SETTLE" --plugin-path "$PLUGIN_DIR" \
    "${FLOOR[@]}" --menubusd-pid "$DAEMON_PID" --log-dir "$TMP/logs"

run_floor=$(values running-floor | median)
stop_floor=$(values stopped-floor | median)
run_without=$(values running-without | median)
run_with=$(values running-with | median)
stop_without=$(values stopped-without | median)
stop_with=$(values stopped-with | median)
h_run_without=$(values running-height-without | median | awk "{printf \"%g\", \$1}")
h_run_with=$(values running-height-with | median | awk "{printf \"%g\", \$1}")
h_stop_without=$(values stopped-height-without | median | awk "{printf \"%g\", \$1}")
h_stop_with=$(values stopped-height-with | median | awk "{printf \"%g\", \$1}")
first_stop_without=$(values stopped-first-without)
first_after_without=$(values first-after-stop-without | median)
first_after_with=$(values first-after-stop-with | median)
first_after_floor=""
[ -n "$run_floor" ] && first_after_floor=$(values first-after-stop-floor | median)
first_stop_with=$(values stopped-first-with)
rss_without=$(values rss-without | median)
rss_with=$(values rss-with | median)

desktop_header "featherpad $(package_version featherpad), Qt $(package_version libqt5widgets5)"
echo
echo "| Menu key to the popup mapped | samples | without theme, median ms | floor, median ms | with theme, median ms | with / without | theme over floor |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
row() {
    awk -v label="$1" -v n="$SAMPLES" -v a="$2" -v f="$3" -v b="$4" 'BEGIN {
        floor = f == "" ? "-" : sprintf("%.1f", f)
        over = f == "" ? "-" : sprintf("%+.1f ms (%.2fx)", b - f, b / f)
        printf "| %s | %d | %.1f | %s | %.1f | %.2fx (%+.1f ms) | %s |\n", label, n, a, floor, b, b / a, b - a, over}'
}
row "menubusd running" "$run_without" "$run_floor" "$run_with"
row "menubusd stopped (SIGSTOP): the first menu after the stop" "$first_after_without" "$first_after_floor" "$first_after_with"
row "menubusd stopped (SIGSTOP): later menus" "$stop_without" "$stop_floor" "$stop_with"
echo
echo "The first menu after the stop: $SAMPLES stops, each after one menu of each app with menubusd answering and a selection change."
echo
echo "| popup height, median px (min-max) | without theme | floor | with theme |"
echo "| --- | ---: | ---: | ---: |"
range() { tr ' ' '\n' | sed '/^$/d' | sort -n | sed -n '1p;$p' | paste -sd- -; }
floor_height() { [ -n "$run_floor" ] && echo "$(values "$1" | median | awk '{printf "%g", $1}') ($(values "$1" | range))" || echo -; }
echo "| menubusd running | $h_run_without ($(values running-height-without | range)) | $(floor_height running-height-floor) | $h_run_with ($(values running-height-with | range)) |"
echo "| first menu after the stop | $(values first-after-stop-height-without | median | awk '{printf "%g", $1}') ($(values first-after-stop-height-without | range)) | $(floor_height first-after-stop-height-floor) | $(values first-after-stop-height-with | median | awk '{printf "%g", $1}') ($(values first-after-stop-height-with | range)) |"
echo "| menubusd stopped (SIGSTOP), later menus | $h_stop_without ($(values stopped-height-without | range)) | $(floor_height stopped-height-floor) | $h_stop_with ($(values stopped-height-with | range)) |"
echo
awk -v a="$first_stop_without" -v b="$first_stop_with" \
    'BEGIN {printf "First menu of the later-menus case (unmeasured above, one sample): %.1f ms without, %.1f ms with the theme (%+.1f ms)\n", a, b, b - a}'
echo
echo "| featherpad after one menu | runs | without theme, median | with theme, median | added |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -v n="$RSS_RUNS" -v a="$rss_without" -v b="$rss_with" \
    'BEGIN {printf "| VmRSS | %d | %.1f MiB | %.1f MiB | %+.1f MiB (%.2fx) |\n", n, a / 1024, b / 1024, (b - a) / 1024, b / a}'
echo
echo "libmenubus.so mapped: $(grep '^theme-loaded ' "$TMP/out" | cut -d' ' -f2- || true)"
echo "other override-redirect windows mapped (not timed): $(grep '^other-windows ' "$TMP/out" | cut -d' ' -f2- || true)"
[ -n "$FLOOR_NOTE" ] && echo "$FLOOR_NOTE"
desktop_menubusd_warnings
exit 0
