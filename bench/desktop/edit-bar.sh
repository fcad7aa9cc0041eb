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
# shellcheck source=desktop-lib.sh
. "$ROOT/bench/desktop/desktop-lib.sh"
desktop_start edit-bar.sh /usr/bin/mousepad
desktop_build edit-bar.sh "the GTK 3 module" make shims
GTK_PATH_DIR="$ROOT/.build/shims/gtk3"
[ -f "$GTK_PATH_DIR/modules/libmenubus.so" ] || { echo "edit-bar.sh: no module (make shims)" >&2; exit 1; }

desktop_start_menubusd edit-bar.sh

echo "measuring: $SAMPLES bars and $SAMPLES menus..." >&2
desktop_measure edit-bar.py --samples "$SAMPLES" --settle "$SETTLE" --gtk-path "$GTK_PATH_DIR"

bar=$(values bar | median)
menu=$(values menu | median)
desktop_header "mousepad $(package_version mousepad), GTK $(package_version libgtk-3-0)"
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
desktop_menubusd_warnings
exit 0
