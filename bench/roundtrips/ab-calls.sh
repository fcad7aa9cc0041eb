#!/usr/bin/env bash
# The round-trip figures (menubus-bench --mode calls: Ping, GetEditMenu,
# GetEditMenu with a locale, GetLayout) of two source trees, alternated on
# fresh private buses, so a change is measured against its base under the
# same load on a shared machine.
#
#   bench/roundtrips/ab-calls.sh BASE_TREE [NEW_TREE] [-n ITERATIONS] [-r ROUNDS]
#
# Each tree must have a release build of menubusd and menubus-bench
# (swift build -c release --product menubusd; ... --product menubus-bench);
# a base tree can be made with `git archive REV | tar -x -C DIR`. NEW_TREE
# defaults to this repository. Prints the rows per run; stops all it started.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE="" NEW="$ROOT" N=2000 ROUNDS=3
while [ $# -gt 0 ]; do
    case "$1" in
        -n) N="${2:?}"; shift 2 ;;
        -r) ROUNDS="${2:?}"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) if [ -z "$BASE" ]; then BASE="$1"; else NEW="$1"; fi; shift ;;
    esac
done
[ -n "$BASE" ] || { echo "ab-calls.sh: give the base tree" >&2; exit 2; }
BUS="" DAEMON="" TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-ab.XXXXXX")"
stop() {
    set +e
    [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
    [ -n "$BUS" ] && kill "$BUS" 2>/dev/null && wait "$BUS" 2>/dev/null
    DAEMON="" BUS=""
}
trap 'stop; rm -rf "$TMP"' EXIT
run() {
    local tree=$1 addr=""
    rm -f "$TMP/address"
    timeout 600 dbus-daemon --session --nofork --print-address=1 >"$TMP/address" 2>/dev/null & BUS=$!
    for _ in $(seq 100); do addr=$(head -n1 "$TMP/address" 2>/dev/null || true); [ -n "$addr" ] && break; sleep 0.05; done
    rm -rf "$TMP/state"
    "$tree/.build/release/menubusd" --address "$addr" --state-dir "$TMP/state" 2>/dev/null & DAEMON=$!
    for _ in $(seq 100); do
        timeout 5 dbus-send --bus="$addr" --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.menubus.MenuBus1 2>/dev/null | grep -q true && break
        sleep 0.05
    done
    echo "### $tree"
    timeout 600 "$tree/.build/release/menubus-bench" --address "$addr" --iterations "$N" --mode calls | grep -E "^\| (Peer|GetEditMenu)|^GetEditMenu"
    stop
}
for _ in $(seq "$ROUNDS"); do run "$BASE"; run "$NEW"; done
