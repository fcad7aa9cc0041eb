#!/usr/bin/env bash
# `menubus-cli show-menu` to MenuBus's menu shown in mousepad, against the
# app's own Shift+F10 menu plus the bus's GetId round trip, in one run.
#
#   bench/desktop/show-menu.sh [-n SAMPLES] [--settle SECONDS] [--cli PATH] [--monitor] [--no-build]
#
# Builds menubusd and menubus-cli (release) and the GTK 3 module (make
# shims), declares the bundled providers (Make Uppercase joins the menu),
# starts a private activating dbus-daemon and menubusd on it (desktop-lib.sh),
# and runs bench/desktop/show-menu.py under xvfb-run -a: one mousepad with
# the module and a word selected; SAMPLES rounds (after one unmeasured),
# each a selection change and a pause before every menu, alternating:
# Shift+F10 through XTest to the popup mapped (the app's own menu), the
# CLI's `show-menu` started to the popup mapped, ShowMenuForFocus sent by
# the driver's already open GDBus connection to the popup mapped,
# bench/desktop/show-menu-client.c (a C libdbus program making the same
# call, built into a temp dir when gcc and libdbus-1-dev are there) started
# to the popup mapped, the bus's GetId from the driver, and, for where the
# CLI's time goes, `menubus-cli show-menu --help` and /bin/true started to
# their exit.
# Every program is started with posix_spawn (as g_spawn starts a shortcut's).
# --cli runs another menubus-cli binary (another build of it) instead of the
# release one built here. --monitor runs dbus-monitor --profile on the bus
# and splits ShowMenuForFocus into menubusd's and the app's parts (the
# monitor adds its own work to every message: a run for where the time
# goes, not for the figures).
# Prints the versions, commit, date and load average, a markdown table of
# medians (ms), the ratios of show-menu (CLI and call) to Shift+F10 + GetId
# and whether they meet the 1.5x target. Installs nothing; stops
# everything it started.
set -euo pipefail

SAMPLES=30
SETTLE=0.15
BUILD=1
BUS_LIFETIME=900
TARGET=1.5
CLI=""
MONITOR=0
MONITOR_PID=""
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        --settle) SETTLE="${2:?--settle needs a value}"; shift 2 ;;
        --cli) CLI="${2:?--cli needs a path}"; shift 2 ;;
        --monitor) MONITOR=1; shift ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "show-menu.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=desktop-lib.sh
. "$ROOT/bench/desktop/desktop-lib.sh"
desktop_start show-menu.sh /usr/bin/mousepad
/usr/bin/python3 -c 'import gi' 2>/dev/null || { echo "show-menu.sh: no python3-gi; run scripts/setup" >&2; exit 1; }
trap 'stop "$MONITOR_PID"; desktop_cleanup' EXIT
desktop_build show-menu.sh "the GTK 3 module" make shims
CLI="${CLI:-$BIN/menubus-cli}"
GTK_PATH_DIR="$ROOT/.build/shims/gtk3"
for built in "$BIN/menubusd" "$CLI" "$GTK_PATH_DIR/modules/libmenubus.so"; do
    [ -e "$built" ] || { echo "show-menu.sh: no $built (build without --no-build)" >&2; exit 1; }
done

CLIENT_ARGS=()
if command -v gcc >/dev/null && pkg-config --exists dbus-1 2>/dev/null \
    && gcc -O2 -Wall -Wextra -o "$TMP/show-menu-client" "$ROOT/bench/desktop/show-menu-client.c" \
        $(pkg-config --cflags --libs dbus-1) 2>"$TMP/client.log"; then
    CLIENT_ARGS=(--client "$TMP/show-menu-client")
else
    echo "show-menu.sh: show-menu-client.c not built (gcc, libdbus-1-dev): no C client row" >&2
fi

desktop_start_menubusd show-menu.sh
MONITOR_ARGS=()
if [ "$MONITOR" = 1 ]; then
    dbus-monitor --address "$ADDR" --profile >"$TMP/monitor.log" 2>&1 &
    MONITOR_PID=$!
    MONITOR_ARGS=(--monitor-log "$TMP/monitor.log")
fi

echo "measuring: $SAMPLES rounds of Shift+F10, show-menu (CLI and call) and GetId..." >&2
desktop_measure show-menu.py --samples "$SAMPLES" --settle "$SETTLE" --gtk-path "$GTK_PATH_DIR" --cli "$CLI" \
    "${CLIENT_ARGS[@]}" "${MONITOR_ARGS[@]}"

key=$(values key | median); getid=$(values getid | median)
cli=$(values cli | median); call=$(values call | median); client=$(values client | median || true)

echo "mousepad $(package_version mousepad), GTK $(package_version libgtk-3-0)," \
    "$("$CLI" --version | paste -sd, - | sed 's/,/, /g'), dbus-daemon $(dbus-daemon --version | sed -n '1s/.* //p')," \
    "commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- shims Sources 2>/dev/null || echo ' (shims/ or Sources/ changed)')," \
    "$(date -u '+%Y-%m-%d %H:%M') UTC, load average $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after," \
    "libmenubus.so mapped: $(values module-loaded)"
echo
echo "| to the popup mapped, median of $SAMPLES | ms | over (a) + (c) | popup height, px |"
echo "| --- | ---: | ---: | ---: |"
# q: a single quote, for the primes in the labels.
awk -v q="'" -v t="$TARGET" -v k="$key" -v g="$getid" -v c="$cli" -v b="$call" -v d="$client" \
    -v hk="$(values height-key | median)" -v hc="$(values height-cli | median)" -v hb="$(values height-call | median)" \
    -v hd="$(values height-client | median || true)" 'BEGIN {
    base = k + g
    printf "| (a) Shift+F10 through XTest | %.2f | | %.0f |\n", k, hk
    printf "| (c) GetId round trip on the same bus | %.2f | | |\n", g
    printf "| (a) + (c) | %.2f | 1.00x | |\n", base
    printf "| (b) `menubus-cli show-menu` started | %.2f | %.2fx | %.0f |\n", c, c / base, hc
    printf "| (b%s) ShowMenuForFocus from the running driver (GDBus) | %.2f | %.2fx | %.0f |\n", q, b, b / base, hb
    if (d != "") printf "| (b%s%s) `show-menu-client` (C, libdbus) started | %.2f | %.2fx | %.0f |\n", q, q, d, d / base, hd
    printf "\nTarget: (b) at most %.1fx (a) + (c): %.2fx, %s; (b%s) %.2fx, %s", t, c / base,
        (c <= t * base) ? "met" : "not met", q, b / base, (b <= t * base) ? "met" : "not met"
    if (d != "") printf "; (b%s%s) %.2fx, %s", q, q, d / base, (d <= t * base) ? "met" : "not met"
    printf ".\n" }'
echo
echo "| where the time goes, median of $SAMPLES | ms |"
echo "| --- | ---: |"
echo "| \`/bin/true\` started to its exit (the spawn) | $(values spawn | median) |"
echo "| \`menubus-cli show-menu --help\` started to its exit (start-up, no bus) | $(values start | median) |"
echo "| (b) started to the CLI's exit (after menubusd's answer) | $(values cli-answered | median) |"
echo "| (b') called to menubusd's answer | $(values call-answered | median) |"
[ -n "$client" ] && echo "| (b'') started to the C client's exit | $(values client-answered | median) |"
if [ "$MONITOR" = 1 ]; then
    echo
    echo "| ShowMenuForFocus as dbus-monitor saw it, median of $(values monitor-app | wc -w), ms | |"
    echo "| --- | ---: |"
    echo "| the call to menubusd's ShowEditMenu call to the app | $(values monitor-menubusd-in | median) |"
    echo "| ShowEditMenu to the app's reply (the module's handler, the menu popped up) | $(values monitor-app | median) |"
    echo "| the app's reply to menubusd's answer | $(values monitor-menubusd-out | median) |"
    echo
    echo "(with dbus-monitor on the bus: every message also goes to the monitor)"
fi
desktop_menubusd_warnings
exit 0
