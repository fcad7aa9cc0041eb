#!/usr/bin/env bash
# The GTK 4 IM module in GNOME's text editor (gnome-text-editor, GTK 4):
# key press to character drawn, key press to the context menu shown, and
# the module's added resident memory per app, with and without the module,
# side by side in one run, alternating.
#
#   bench/desktop/gtk4-im.sh [-n KEY_SAMPLES] [--key-pairs P] [--jitter MS] [--seed S] [-m MENU_SAMPLES]
#                            [--rss-runs N] [--settle SECONDS] [--no-build] [--bin DIR] [--module-folder DIR]
#
# --bin: the folder of the menubusd and menubus-cli to run (default: the
# release build; /usr/bin for the installed package); --module-folder: the
# GTK_PATH entry of the module (default: .build/shims/gtk4-im).
# Builds menubusd and menubus-cli (release) and the module (make
# gtk4-im-module), starts a private activating dbus-daemon with the bundled
# providers declared and menubusd on it (desktop-lib.sh), and runs
# bench/desktop/gtk4-im.py under xvfb-run -a with pairs of editors (GTK's
# own IM; GTK_IM_MODULE=menubus with GTK_PATH at the module's folder):
# MENU_SAMPLES menus each after one unmeasured in one pair (Shift+F10 to the
# popover's window mapped; the selection changes before each menu, and GTK's
# "duplicate child name in GtkStack" warnings are counted; default 30, 0
# skips them); then P fresh pairs (default 6, the first started alternating;
# in each app a word typed and selected and one menu opened first)
# of KEY_SAMPLES letters each (default 50; timed from the XTest press to the
# window's next DamageNotify, after a seeded random pause of 0 to MS ms,
# default 16.7, so that the keys fall at every phase of the apps' frame
# clocks; 0 pauses not); then N fresh pairs for VmRSS after one menu
# (default 5, 0 skips them).
# Prints the versions, commit, date and load average and markdown tables:
# the key press pooled over all pairs (medians, difference, ratio) and the
# median of the pairs' ratios, each pair's medians, the menus, the memory.
# Installs nothing; stops everything it started.
set -euo pipefail

SAMPLES=50
KEY_PAIRS=6
JITTER=16.7
SEED=40
MENU_SAMPLES=30
RSS_RUNS=5
SETTLE=0.15
BUILD=1
BIN_ARG=""
MODULE_FOLDER=""
BUS_LIFETIME=1800
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        --key-pairs) KEY_PAIRS="${2:?--key-pairs needs a value}"; shift 2 ;;
        --jitter) JITTER="${2:?--jitter needs a value}"; shift 2 ;;
        --seed) SEED="${2:?--seed needs a value}"; shift 2 ;;
        -m) MENU_SAMPLES="${2:?-m needs a value}"; shift 2 ;;
        --rss-runs) RSS_RUNS="${2:?--rss-runs needs a value}"; shift 2 ;;
        --settle) SETTLE="${2:?--settle needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --bin) BIN_ARG="${2:?--bin needs a folder}"; BUILD=0; shift 2 ;;
        --module-folder) MODULE_FOLDER="${2:?--module-folder needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gtk4-im.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ "$KEY_PAIRS" -ge 1 ] && [ "$SAMPLES" -ge 1 ] || { echo "gtk4-im.sh: -n and --key-pairs must be at least 1" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=desktop-lib.sh
. "$ROOT/bench/desktop/desktop-lib.sh"
desktop_start gtk4-im.sh /usr/bin/gnome-text-editor
/usr/bin/python3 -c 'import Xlib.ext.damage' 2>/dev/null || { echo "gtk4-im.sh: no python3-xlib with DAMAGE; run scripts/setup" >&2; exit 1; }
desktop_build gtk4-im.sh "the GTK 4 IM module" make gtk4-im-module
if [ -n "$BIN_ARG" ]; then
    BIN="$BIN_ARG"
    [ -x "$BIN/menubusd" ] || { echo "gtk4-im.sh: no menubusd at $BIN" >&2; exit 1; }
fi
[ -n "$MODULE_FOLDER" ] || MODULE_FOLDER="$ROOT/.build/shims/gtk4-im"
[ -f "$MODULE_FOLDER/4.0.0/immodules/libim-menubus.so" ] \
    || { echo "gtk4-im.sh: no $MODULE_FOLDER/4.0.0/immodules/libim-menubus.so (make gtk4-im-module)" >&2; exit 1; }

desktop_start_menubusd gtk4-im.sh
echo "measuring: $MENU_SAMPLES menus per app, $KEY_PAIRS fresh pairs of $SAMPLES keys per app, $RSS_RUNS pairs for memory..." >&2
desktop_measure gtk4-im.py --samples "$SAMPLES" --key-pairs "$KEY_PAIRS" --jitter "$JITTER" --seed "$SEED" \
    --menu-samples "$MENU_SAMPLES" --rss-runs "$RSS_RUNS" --settle "$SETTLE" --module-folder "$MODULE_FOLDER"

# ratio_row TITLE SAMPLES WITHOUT WITH: the medians, the difference and the ratio.
ratio_row() {
    awk -v t="$1" -v n="$2" -v a="$3" -v b="$4" \
        'BEGIN { printf "| %s | %d | %.2f | %.2f | %+.2f | %.3fx |\n", t, n, a, b, b - a, b / a }'
}

desktop_header "gnome-text-editor $(package_version gnome-text-editor), GTK $(package_version libgtk-4-1), menubusd $BIN/menubusd, module $MODULE_FOLDER"
echo
echo "| gnome-text-editor, ms | samples | GTK's own IM, median | through the menubus IM module, median | with − without | with / without |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
pooled_without=$(for p in $(seq 1 "$KEY_PAIRS"); do values "key-without-$p"; done | median)
pooled_with=$(for p in $(seq 1 "$KEY_PAIRS"); do values "key-with-$p"; done | median)
ratio_row "key press to the character drawn (XTest press to DamageNotify, pause 0–$JITTER ms before, seed $SEED), pooled over $KEY_PAIRS pairs" \
    $((SAMPLES * KEY_PAIRS)) "$pooled_without" "$pooled_with"
if [ "$MENU_SAMPLES" -gt 0 ]; then
    ratio_row "Shift+F10 to the menu's popover mapped" "$MENU_SAMPLES" "$(values menu-without | median)" "$(values menu-with | median)"
fi
echo
echo "| key press, pair (started first) | without, median ms | with, median ms | with / without |"
echo "| --- | ---: | ---: | ---: |"
pair_ratios=""
for p in $(seq 1 "$KEY_PAIRS"); do
    without=$(values "key-without-$p" | median); with=$(values "key-with-$p" | median)
    ratio=$(awk -v a="$without" -v b="$with" 'BEGIN { printf "%.3f", b / a }')
    pair_ratios="$pair_ratios $ratio"
    echo "| $p ($(values "key-first-$p")) | $without | $with | ${ratio}x |"
done
echo "| median of the $KEY_PAIRS pairs' ratios | | | $(echo "$pair_ratios" | median | awk '{ printf "%.3f", $1 }')x |"
if [ "$RSS_RUNS" -gt 0 ]; then
    echo
    rss_without=$(values rss-without | median)
    rss_with=$(values rss-with | median)
    echo "| gnome-text-editor after one menu | runs | without the module, median | with the module, median | added |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    awk -v n="$RSS_RUNS" -v a="$rss_without" -v b="$rss_with" \
        'BEGIN {printf "| VmRSS | %d | %.1f MiB | %.1f MiB | %+.2f MiB (%.3fx) |\n", n, a / 1024, b / 1024, (b - a) / 1024, b / a}'
fi
echo
echo "libim-menubus.so mapped: $(grep '^module-loaded ' "$TMP/out" | cut -d' ' -f2- || true) (checked in every pair)"
if [ "$MENU_SAMPLES" -gt 0 ]; then
    echo "Shift+F10 presses that opened no menu within 5 s (asked again): $(values menu-missed || echo 0);" \
        "submenu pages GTK added to a popover again during the menus (\"duplicate child name in GtkStack\"): $(grep '^stack-pages-again ' "$TMP/out" | cut -d' ' -f2- || true)"
    echo "menus in order, ms: without $(values menu-without); with $(values menu-with)"
fi
desktop_menubusd_warnings
exit 0
