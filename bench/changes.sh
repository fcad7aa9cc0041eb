#!/usr/bin/env bash
# A one-label live change, menubusd beside GLib's own org.gtk.Menus
# exporter making the same change to the same 12-item menu, as GLib's
# GDBusMenuModel (what GTK draws from) sees it (bench/changes.py).
#
#   bench/changes.sh [--rounds N] [--runs R] [--no-build] [--scratch-path DIR]
#
# Builds menubusd (release), starts a private bus, and R times (interleaved
# rounds inside each run) times UpdateItems -> the new label in the model,
# against GLib's exporter's remove + insert -> the new label; counts the
# org.gtk.Menus/Actions signals and their bytes for one rename. Prints one
# JSON line per run. Installs nothing (scripts/setup does). Exit 0 whatever
# the numbers; 1 if it cannot measure.
set -euo pipefail

ROUNDS=200
RUNS=3
BUILD=1
SCRATCH=""
BUS_LIFETIME=600

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="${2:?--rounds needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --scratch-path) SCRATCH="${2:?--scratch-path needs a value}"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "changes.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
SCRATCH="${SCRATCH:-$ROOT/.build}"
PYTHON=/usr/bin/python3
if ! "$PYTHON" -c 'from gi.repository import Gio' 2>/dev/null; then
    echo "changes.sh: $PYTHON cannot import Gio (python3-gi; scripts/setup installs it)" >&2
    exit 1
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-changes.XXXXXX")"
BUS_PID="" MENUBUSD_PID="" JOB_PID=""
# shellcheck source=bench/lib.sh
. "$BENCH/lib.sh"
cleanup() {
    set +e
    stop "$JOB_PID"
    stop "$MENUBUSD_PID"
    stop "$BUS_PID"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$BUILD" = 1 ]; then
    echo "building menubusd (swift build -c release --product menubusd --scratch-path $SCRATCH)..." >&2
    job timeout 900 swift build -c release --product menubusd --scratch-path "$SCRATCH" >"$TMP/build.log" 2>&1 \
        || { tail -n 30 "$TMP/build.log" >&2; exit 1; }
fi
MENUBUSD="$SCRATCH/release/menubusd"
[ -x "$MENUBUSD" ] || { echo "changes.sh: no release menubusd at $MENUBUSD" >&2; exit 1; }

start_private_bus changes.sh
mkdir -p "$TMP/state"
"$MENUBUSD" --address "$ADDR" --state-dir "$TMP/state" 2>"$TMP/menubusd.log" &
MENUBUSD_PID=$!
for _ in $(seq 1 100); do has_owner org.menubus.MenuBus1 && break; sleep 0.1; done
has_owner org.menubus.MenuBus1 || { cat "$TMP/menubusd.log" >&2; exit 1; }

for run in $(seq 1 "$RUNS"); do
    DBUS_SESSION_BUS_ADDRESS="$ADDR" job timeout 300 "$PYTHON" "$BENCH/changes.py" "$ROUNDS" \
        "$ROOT/Tests/consumers/glib_exporter.py"
done
