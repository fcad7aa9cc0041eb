#!/usr/bin/env bash
# Where a live change's time goes between processes: bench/changes/changes.sh run
# under a system-wide syscall trace (perf trace), each change placed by a
# marking write of bench/changes/changes.py, and bench/changes/changes-trace.py telling for
# menubusd, the floor (a service that does no work) and the reference
# exporters when the app's call left the app, when the service read it (or
# the reference its command), when the change's first message left, and
# when it reached the bench's socket and when KDE's importer showed it.
#
#   bench/changes/changes-trace.sh [--rounds N] [--no-build] [--no-kde] [--scratch-path DIR] [--keep DIR]
#
# The trace costs every traced syscall some 25-40 us here, and the sides
# make different numbers of them before their first message (the floor 8,
# GLib's exporter 5-7, libdbusmenu-glib's server about 8), so its times run
# longer than bench/changes/changes.sh's and compare the sides only roughly.
# Prints changes-trace.py's JSON line, and its table on stderr; with
# --keep DIR the trace and changes.py's line (its times taken under the
# trace) stay in DIR. Needs perf (Debian's linux-perf) allowed to trace
# every process (root, or kernel.perf_event_paranoid -1); installs nothing.
set -euo pipefail

ROUNDS=30
BUILD=1
PASS=()
SCRATCH=""
KEEP=""

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="${2:?--rounds needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-kde) PASS+=(--no-kde); shift ;;
        --scratch-path) SCRATCH="${2:?--scratch-path needs a value}"; shift 2 ;;
        --keep) KEEP="${2:?--keep needs a directory}"; shift 2 ;;
        -h|--help) sed -n '2,/^set /{/^#/p;}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "changes-trace.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench/changes"
SCRATCH="${SCRATCH:-$ROOT/.build}"
command -v perf >/dev/null 2>&1 || { echo "changes-trace.sh: perf is missing (apt-get install linux-perf)" >&2; exit 1; }
perf trace -e write -- true >/dev/null 2>&1 \
    || { echo "changes-trace.sh: perf trace cannot trace here (needs root or kernel.perf_event_paranoid -1)" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-changes-trace.XXXXXX")"
JOB_PID="" TRACE_PID=""
# shellcheck source=bench/lib/lib.sh
. "$ROOT/bench/lib/lib.sh"
trap 'stop "$TRACE_PID"; stop "$JOB_PID"; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
release_menubusd changes-trace.sh

perf trace -a -T -e read,write,sendmsg,recvmsg,sendto -o "$TMP/trace.txt" 2>"$TMP/perf.log" &
TRACE_PID=$!
# perf writes its output file once it traces.
for _ in $(seq 1 100); do [ -s "$TMP/trace.txt" ] && break; sleep 0.1; done
[ -s "$TMP/trace.txt" ] || { cat "$TMP/perf.log" >&2; echo "changes-trace.sh: perf trace did not start" >&2; exit 1; }

MENUBUS_BENCH_MARK=1 job "$BENCH/changes.sh" --no-build --rounds "$ROUNDS" --runs 1 --scratch-path "$SCRATCH" \
    "${PASS[@]}" >"$TMP/changes.json"
kill -INT "$TRACE_PID"
rc=0
wait "$TRACE_PID" || rc=$?
TRACE_PID=""
# perf ends with 0, or 130 when SIGINT ends it before its handler is set.
if [ "$rc" != 0 ] && [ "$rc" != 130 ]; then
    cat "$TMP/perf.log" >&2
    echo "changes-trace.sh: perf trace exited with $rc" >&2
fi
if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP"
    cp "$TMP/trace.txt" "$TMP/changes.json" "$KEEP"/
fi
/usr/bin/python3 "$BENCH/changes-trace.py" "$TMP/trace.txt" "$TMP/changes.json"
