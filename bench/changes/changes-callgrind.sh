#!/usr/bin/env bash
# Instructions menubusd spends on a live change, load-independent: from the
# start of the UpdateItems / UpdateSelection call's dispatch until its first
# export signal is handed to libdbus, and until the next call.
#
#   bench/changes/changes-callgrind.sh [--rounds N] [--no-build] [--scratch-path DIR] [--keep DIR]
#
# Runs a release menubusd under valgrind --tool=callgrind on a private bus
# while bench/changes/changes.py makes N rounds of its changes (without the KDE
# follower: dbusmenu signals are broadcast, so it changes nothing before
# the first signal). callgrind dumps its counters where a method call's
# dispatch starts and before every dbus_connection_send (and, in builds
# from before one transport, every direct write to the socket), so each dump is
# the work up to one message sent; bench/changes/changes-callgrind.py sorts
# the dumps by change and protocol and prints medians per change. With
# --keep DIR the dumps stay in DIR (callgrind_annotate --inclusive=yes on
# one shows where its instructions go). Needs valgrind; installs nothing.
set -euo pipefail

ROUNDS=10
BUILD=1
SCRATCH=""
KEEP=""
BUS_LIFETIME=900

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="${2:?--rounds needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --scratch-path) SCRATCH="${2:?--scratch-path needs a value}"; shift 2 ;;
        --keep) KEEP="${2:?--keep needs a directory}"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "changes-callgrind.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench/changes"
SCRATCH="${SCRATCH:-$ROOT/.build}"
PYTHON=/usr/bin/python3
command -v valgrind >/dev/null 2>&1 || { echo "changes-callgrind.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-changes-callgrind.XXXXXX")"
BUS_PID="" MENUBUSD_PID="" JOB_PID=""
# shellcheck source=bench/lib/lib.sh
. "$ROOT/bench/lib/lib.sh"
trap stop_everything EXIT
trap 'exit 130' INT TERM
release_menubusd changes-callgrind.sh
DISPATCH="$(nm "$MENUBUSD" | awk '$3 ~ /ConnectionC18dispatchMethodCall/ && !found { print $3; found = 1 }')"
[ -n "$DISPATCH" ] || { echo "changes-callgrind.sh: no dispatchMethodCall symbol in $MENUBUSD" >&2; exit 1; }
# Builds from before one transport wrote some messages to the socket
# directly (writeDirectly); later ones, and the oldest, send every one
# through dbus_connection_send.
DIRECT="$(nm "$MENUBUSD" | awk '$3 ~ /ConnectionC13writeDirectly/ && !found { print $3; found = 1 }')"
DIRECT_DUMP=()
[ -z "$DIRECT" ] || DIRECT_DUMP=(--dump-before="$DIRECT")

start_private_bus changes-callgrind.sh
mkdir -p "$TMP/state" "$TMP/dumps"
# Swift seeds its hashing per process; a fixed seed makes two builds' counts comparable.
SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
    --dump-before="$DISPATCH" --dump-before=dbus_connection_send "${DIRECT_DUMP[@]}" \
    --callgrind-out-file="$TMP/dumps/callgrind.out" \
    "$MENUBUSD" --address "$ADDR" --state-dir "$TMP/state" 2>"$TMP/menubusd.log" &
MENUBUSD_PID=$!
for _ in $(seq 1 300); do has_owner org.menubus.MenuBus1 && break; sleep 0.1; done
has_owner org.menubus.MenuBus1 || { cat "$TMP/menubusd.log" >&2; exit 1; }

DBUS_SESSION_BUS_ADDRESS="$ADDR" job timeout 800 "$PYTHON" "$BENCH/changes.py" "$ROUNDS" \
    "$ROOT/Tests/consumers/glib_exporter.py" "$BENCH/changes-dbusmenu-server.py" >"$TMP/changes.json"
stop "$MENUBUSD_PID"
MENUBUSD_PID=""
"$PYTHON" "$BENCH/changes-callgrind.py" "$TMP/dumps"
if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP"
    cp "$TMP"/dumps/callgrind.out* "$KEEP"/
fi
