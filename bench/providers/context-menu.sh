#!/usr/bin/env bash
# GetContextMenu of a text context with a selection, with 20 declared
# providers that all match it, against Peer.Ping in the same run.
#
#   bench/providers/context-menu.sh [-n ITERATIONS] [--providers N] [--no-build]
#
# Builds menubusd and menubus-bench (release), writes N key files (default
# 20) into a temp XDG_DATA_HOME, starts a private dbus-daemon and menubusd on
# it, and runs 'menubus-bench --mode providers': interleaved calls, medians
# and the ratio. Installs nothing; stops everything it started.
set -euo pipefail

ITERATIONS=5000
PROVIDERS=20
BUILD=1
BUS_LIFETIME=600
while [ $# -gt 0 ]; do
    case "$1" in
        -n) ITERATIONS="${2:?-n needs a value}"; shift 2 ;;
        --providers) PROVIDERS="${2:?--providers needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "context-menu.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
if [ "$BUILD" = 1 ]; then
    swift build -c release --product menubusd >/dev/null
    swift build -c release --product menubus-bench >/dev/null
fi
BIN="$(swift build -c release --show-bin-path)"

TMP="$(mktemp -d)"
JOB_PID=""
BUS_PID=""
MENUBUSD_PID=""
# shellcheck source=../lib/lib.sh
. "$ROOT/bench/lib/lib.sh"
trap stop_everything EXIT

mkdir -p "$TMP/data/menubus/providers" "$TMP/config" "$TMP/state"
for i in $(seq 1 "$PROVIDERS"); do
    printf '[MenuBus Provider]\nId=org.example.Bench%d\nTitle=Transform Text %d\nIcon=system-run\nContentTypes=text/plain;\nReturnsText=true\nDBusName=org.example.Bench%d\n' \
        "$i" "$i" "$i" > "$TMP/data/menubus/providers/org.example.Bench$i.provider"
done
start_private_bus context-menu.sh
XDG_DATA_HOME="$TMP/data" XDG_DATA_DIRS="$TMP/none" XDG_CONFIG_HOME="$TMP/config" \
    "$BIN/menubusd" --address "$ADDR" --state-dir "$TMP/state" 2>"$TMP/menubusd.log" &
MENUBUSD_PID=$!
wait_for_menubusd context-menu.sh "$TMP/menubusd.log"

echo "- command: bench/providers/context-menu.sh -n $ITERATIONS --providers $PROVIDERS"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- menubusd: release build of $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
job "$BIN/menubus-bench" --address "$ADDR" --iterations "$ITERATIONS" --mode providers
if grep -q 'warning' "$TMP/menubusd.log"; then
    echo "menubusd warned:" >&2
    cat "$TMP/menubusd.log" >&2
fi
