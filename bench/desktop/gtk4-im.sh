#!/usr/bin/env bash
# The GTK 4 IM module in GNOME's text editor (gnome-text-editor, GTK 4):
# key press to character drawn, key press to the context menu shown, and
# the module's added resident memory per app, with and without the module,
# side by side in one run, alternating.
#
#   bench/desktop/gtk4-im.sh [-n KEY_SAMPLES] [-m MENU_SAMPLES] [--rss-runs N] [--settle SECONDS] [--no-build]
#                            [--bin DIR] [--module-folder DIR]
#
# --bin: the folder of the menubusd and menubus-cli to run (default: the
# release build; /usr/bin for the installed package); --module-folder: the
# GTK_PATH entry of the module (default: .build/shims/gtk4-im).
# Builds menubusd and menubus-cli (release) and the module (make shims),
# starts a private dbus-daemon whose configuration has a service directory,
# declares the bundled providers in a temp XDG_DATA_HOME, starts menubusd,
# and runs bench/desktop/gtk4-im.py under xvfb-run -a: two editors (GTK's
# own IM; GTK_IM_MODULE=menubus with GTK_PATH at .build/shims/gtk4-im),
# KEY_SAMPLES letters each (timed from the XTest press to the window's next
# DamageNotify), MENU_SAMPLES menus each after one unmeasured (Shift+F10 to
# the popover's window mapped; the selection changes before each menu, and
# GTK's "duplicate child name in GtkStack" warnings are counted), then N
# fresh pairs for VmRSS after one menu.
# Prints the versions, commit, date and load average and a markdown table
# of medians with the difference and the ratio. Installs nothing; stops
# everything it started.
set -euo pipefail

SAMPLES=100
MENU_SAMPLES=30
RSS_RUNS=5
SETTLE=0.15
BUILD=1
BIN=""
MODULE_FOLDER=""
BUS_LIFETIME=900
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        -m) MENU_SAMPLES="${2:?-m needs a value}"; shift 2 ;;
        --rss-runs) RSS_RUNS="${2:?--rss-runs needs a value}"; shift 2 ;;
        --settle) SETTLE="${2:?--settle needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --bin) BIN="${2:?--bin needs a folder}"; BUILD=0; shift 2 ;;
        --module-folder) MODULE_FOLDER="${2:?--module-folder needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gtk4-im.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
for tool in /usr/bin/gnome-text-editor /usr/bin/xvfb-run /usr/bin/xdotool; do
    [ -x "$tool" ] || { echo "gtk4-im.sh: no $tool; run scripts/setup" >&2; exit 1; }
done
/usr/bin/python3 -c 'import Xlib.ext.damage' 2>/dev/null || { echo "gtk4-im.sh: no python3-xlib; run scripts/setup" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-gtk4-im.XXXXXX")"
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
    echo "building menubusd, menubus-cli (release) and the GTK 4 IM module..." >&2
    { swift build -c release --product menubusd && swift build -c release --product menubus-cli \
        && make gtk4-im-module; } >"$TMP/build.log" 2>&1 || { tail -n 30 "$TMP/build.log" >&2; exit 1; }
fi
[ -n "$BIN" ] || BIN="$(swift build -c release --show-bin-path)"
[ -x "$BIN/menubusd" ] || { echo "gtk4-im.sh: no release menubusd at $BIN" >&2; exit 1; }
[ -n "$MODULE_FOLDER" ] || MODULE_FOLDER="$ROOT/.build/shims/gtk4-im"
[ -f "$MODULE_FOLDER/4.0.0/immodules/libim-menubus.so" ] \
    || { echo "gtk4-im.sh: no $MODULE_FOLDER/4.0.0/immodules/libim-menubus.so (make gtk4-im-module)" >&2; exit 1; }

start_menubusd_with_bundled_providers gtk4-im.sh
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

echo "measuring: $SAMPLES keys and $MENU_SAMPLES menus per app, $RSS_RUNS pairs for memory..." >&2
TMPDIR="$TMP" job xvfb-run -a -s "-screen 0 1024x768x24" /usr/bin/python3 "$ROOT/bench/desktop/gtk4-im.py" \
    --samples "$SAMPLES" --menu-samples "$MENU_SAMPLES" --rss-runs "$RSS_RUNS" --settle "$SETTLE" \
    --module-folder "$MODULE_FOLDER" >"$TMP/out" 2>"$TMP/helper.log" || { tail -n 20 "$TMP/helper.log" >&2; exit 1; }

row() {
    # row TITLE NAME SAMPLES: medians without and with, the difference and the ratio.
    local without with
    without=$(values "$2-without" | median); with=$(values "$2-with" | median)
    awk -v t="$1" -v n="$3" -v a="$without" -v b="$with" \
        'BEGIN { printf "| %s | %d | %.2f | %.2f | %+.2f | %.3fx |\n", t, n, a, b, b - a, b / a }'
}

echo "gnome-text-editor $(dpkg-query -W -f '${Version}' gnome-text-editor 2>/dev/null), GTK $(dpkg-query -W -f '${Version}' libgtk-4-1 2>/dev/null)," \
    "menubusd $BIN/menubusd, module $MODULE_FOLDER, commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- shims 2>/dev/null || echo ' (shims/ changed)')," \
    "$(date -u '+%Y-%m-%d %H:%M') UTC, load average $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "| gnome-text-editor, ms | samples | GTK's own IM, median | through the menubus IM module, median | with − without | with / without |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
row "key press to the character drawn (XTest press to DamageNotify)" key "$SAMPLES"
row "Shift+F10 to the menu's popover mapped" menu "$MENU_SAMPLES"
echo
rss_without=$(values rss-without | median)
rss_with=$(values rss-with | median)
echo "| gnome-text-editor after one menu | runs | without the module, median | with the module, median | added |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -v n="$RSS_RUNS" -v a="$rss_without" -v b="$rss_with" \
    'BEGIN {printf "| VmRSS | %d | %.1f MiB | %.1f MiB | %+.2f MiB (%.3fx) |\n", n, a / 1024, b / 1024, (b - a) / 1024, b / a}'
echo
echo "libim-menubus.so mapped: $(grep '^module-loaded ' "$TMP/out" | cut -d' ' -f2- || true);" \
    "Shift+F10 presses that opened no menu within 5 s (asked again): $(values menu-missed || echo 0);" \
    "submenu pages GTK added to a popover again during the menus (\"duplicate child name in GtkStack\"): $(grep '^stack-pages-again ' "$TMP/out" | cut -d' ' -f2- || true)"
echo "menus in order, ms: without $(values menu-without); with $(values menu-with)"
if grep -q '^<4>\|^warning' "$TMP/menubusd.log"; then
    echo "menubusd warned:" >&2
    grep '^<4>\|^warning' "$TMP/menubusd.log" >&2
fi
exit 0
