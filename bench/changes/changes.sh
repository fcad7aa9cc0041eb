#!/usr/bin/env bash
# Live changes as the desktop's consumers see them: menubusd beside GLib's
# own org.gtk.Menus exporter and libdbusmenu-glib's DbusmenuServer making
# the same change to the same menu (bench/changes/changes.py): a one-label rename
# (UpdateItems) and a selection change that removes or adds Select All
# (UpdateSelection), each followed by GLib's GDBusMenuModel (what GTK 3 and
# GTK 4 draw from), libdbusmenu-glib's DbusmenuClient and KDE's
# DBusMenuImporter (bench/changes/changes-kde.cpp).
#
#   bench/changes/changes.sh [--rounds N] [--runs R] [--no-build] [--no-kde] [--scratch-path DIR]
#
# Builds menubusd (release) and the KDE follower (g++, Qt 5, dbusmenu-qt5;
# left out with a note when they are missing, or with --no-kde), starts a
# private bus, and R times (N interleaved rounds inside each run) times
# each change until each consumer's model shows it, against the reference
# doing the same, told through its stdin (ratio) and told by a D-Bus call
# as menubusd is (ratio_bus); counts the signals and their bytes for one
# rename. With gcc and libdbus-1-dev it also builds and starts
# bench/changes/changes-floor.c, a service that does no work (the floor side).
# Prints one JSON line per run. Installs nothing (scripts/setup does).
# Exit 0 whatever the numbers; 1 if it cannot measure.
set -euo pipefail

ROUNDS=100
RUNS=3
BUILD=1
KDE=1
SCRATCH=""
BUS_LIFETIME=1800

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="${2:?--rounds needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-kde) KDE=0; shift ;;
        --scratch-path) SCRATCH="${2:?--scratch-path needs a value}"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "changes.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench/changes"
SCRATCH="${SCRATCH:-$ROOT/.build}"
PYTHON=/usr/bin/python3
if ! "$PYTHON" -c 'import gi; gi.require_version("Dbusmenu", "0.4"); from gi.repository import Gio, Dbusmenu' 2>/dev/null; then
    echo "changes.sh: $PYTHON cannot import Gio and Dbusmenu (python3-gi, gir1.2-dbusmenu-glib-0.4; scripts/setup installs them)" >&2
    exit 1
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-changes.XXXXXX")"
BUS_PID="" MENUBUSD_PID="" JOB_PID="" FLOOR_PID=""
# shellcheck source=bench/lib/lib.sh
. "$ROOT/bench/lib/lib.sh"
trap 'stop "$JOB_PID"; stop "$FLOOR_PID"; stop_everything' EXIT
trap 'exit 130' INT TERM
release_menubusd changes.sh

KDE_FOLLOWER=()
if [ "$KDE" = 1 ]; then
    if command -v g++ >/dev/null 2>&1 && pkg-config --exists Qt5Widgets Qt5DBus dbusmenu-qt5 2>/dev/null; then
        # shellcheck disable=SC2046
        g++ -std=c++17 -O2 -fPIC -o "$TMP/changes-kde" "$BENCH/changes-kde.cpp" \
            $(pkg-config --cflags --libs Qt5Widgets Qt5DBus dbusmenu-qt5) 2>"$TMP/kde-build.log" \
            || { cat "$TMP/kde-build.log" >&2; exit 1; }
        KDE_FOLLOWER=("$TMP/changes-kde")
    else
        echo "changes.sh: no KDE follower (needs g++, qtbase5-dev, libdbusmenu-qt5-dev); measuring without it" >&2
    fi
fi

start_private_bus changes.sh
mkdir -p "$TMP/state"
"$MENUBUSD" --address "$ADDR" --state-dir "$TMP/state" 2>"$TMP/menubusd.log" &
MENUBUSD_PID=$!
for _ in $(seq 1 100); do has_owner org.menubus.MenuBus1 && break; sleep 0.1; done
has_owner org.menubus.MenuBus1 || { cat "$TMP/menubusd.log" >&2; exit 1; }

if command -v gcc >/dev/null 2>&1 && pkg-config --exists dbus-1 2>/dev/null; then
    # shellcheck disable=SC2046
    gcc -O2 -Wall -Wextra -o "$TMP/changes-floor" "$BENCH/changes-floor.c" $(pkg-config --cflags --libs dbus-1) \
        2>"$TMP/floor-build.log" || { cat "$TMP/floor-build.log" >&2; exit 1; }
    "$TMP/changes-floor" --address "$ADDR" org.menubus.Bench.Floor 2>"$TMP/floor.log" &
    FLOOR_PID=$!
    for _ in $(seq 1 100); do has_owner org.menubus.Bench.Floor && break; sleep 0.1; done
    has_owner org.menubus.Bench.Floor || { cat "$TMP/floor.log" >&2; exit 1; }
else
    echo "changes.sh: no floor side (needs gcc, libdbus-1-dev); measuring without it" >&2
fi

for run in $(seq 1 "$RUNS"); do
    DBUS_SESSION_BUS_ADDRESS="$ADDR" job timeout 600 "$PYTHON" "$BENCH/changes.py" "$ROUNDS" \
        "$ROOT/Tests/consumers/glib_exporter.py" \
        "$BENCH/changes-dbusmenu-server.py" "${KDE_FOLLOWER[@]}"
done
