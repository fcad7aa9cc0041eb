#!/usr/bin/env bash
# The menu service's figures in one run on one private bus: GetEditMenu and
# Menu.GetLayout against Ping, composition in process, daemon memory with
# 100 apps x 100 contexts, deferred-fill latency, another app's latency
# while one client hangs on 100 deferred calls, and RegisterUndo throughput
# with the journal on (in a temporary state directory).
#
#   bench/roundtrips/menus.sh [-n ITERATIONS] [--mode MODE]... [--no-build]
#
# MODE is one of compose, calls, deferred, isolation, memory, undo, preview
# (PresentMenu with a 256 KiB PNG preview against one without); all of
# them by default.
#
# Builds menubusd and menubus-bench (release), starts a private dbus-daemon
# and menubusd on it, runs every mode of menubus-bench, prints markdown.
# Installs nothing; exits 0 whatever the numbers; stops all it started.
set -euo pipefail

ITERATIONS=5000
BUILD=1
MODES=""
while [ $# -gt 0 ]; do
    case "$1" in
        -n) ITERATIONS="${2:?-n needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --mode) MODES="${MODES:+$MODES }${2:?--mode needs a value}"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "menus.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-menus.XXXXXX")"
BUS_PID="" DAEMON_PID=""
cleanup() {
    set +e
    [ -n "$DAEMON_PID" ] && kill -TERM "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
    [ -n "$BUS_PID" ] && kill -TERM "$BUS_PID" 2>/dev/null && wait "$BUS_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$BUILD" = 1 ]; then
    echo "building (swift build -c release)..." >&2
    swift build -c release --product menubusd >"$TMP/build.log" 2>&1 &&
        swift build -c release --product menubus-bench >>"$TMP/build.log" 2>&1 ||
        { tail -n 30 "$TMP/build.log" >&2; exit 1; }
fi

# The gettext catalogues the localised GetEditMenu row reads (.build/share/locale).
scripts/build-locale

timeout 1200 dbus-daemon --session --nofork --print-address=1 >"$TMP/bus.address" 2>"$TMP/bus.log" &
BUS_PID=$!
ADDR=""
for _ in $(seq 1 100); do
    ADDR="$(head -n 1 "$TMP/bus.address" 2>/dev/null || true)"
    [ -n "$ADDR" ] && break
    sleep 0.05
done
[ -n "$ADDR" ] || { echo "menus.sh: the private dbus-daemon did not start" >&2; exit 1; }

# A long deferred timeout keeps the hung client's 100 calls pending while measured.
.build/release/menubusd --address "$ADDR" --deferred-timeout 120 --state-dir "$TMP/state" 2>"$TMP/menubusd.log" &
DAEMON_PID=$!
for _ in $(seq 1 100); do
    timeout 5 dbus-send --bus="$ADDR" --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.menubus.MenuBus1 2>/dev/null | grep -q true && break
    sleep 0.05
done

echo "## Menu service (issues: menus; deferred, live menus and providers)"
echo
echo "- command: bench/roundtrips/menus.sh -n $ITERATIONS${MODES:+ --mode ${MODES// / --mode }}"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- menubusd: $(.build/release/menubusd --version), release build of $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
for mode in ${MODES:-compose calls deferred isolation memory undo preview}; do
    timeout 600 .build/release/menubus-bench --address "$ADDR" --iterations "$ITERATIONS" --mode "$mode"
done
