#!/usr/bin/env bash
# Manager round trips: menubusd against a minimal C libdbus server, on one
# private bus, with the bus daemon's own GetId as the floor.
#
#   bench/roundtrips/run.sh [-n CALLS] [--rounds R] [--warmup W] [--no-build]
#
# Builds menubusd (release) and two C programs (into a temp dir, never the
# repo), starts a private dbus-daemon, menubusd and bench/c-baseline-server
# on it, and runs bench/rtt-client against both names. Prints a markdown
# table, the ratio menubusd GetAll p50 / baseline GetAll p50 against the
# 1.3x target, and menubusd's RSS. Installs nothing. Exits 0 whatever the
# numbers (a benchmark, not a test); 1 if it cannot measure at all.
# Everything it starts is stopped at exit; the bus daemon also carries a
# hard time limit, so even a SIGKILLed run leaves nothing behind for long.
set -euo pipefail

CALLS=10000
ROUNDS=100
WARMUP=500
BUILD=1
TARGET=1.3
BASELINE_NAME=org.menubus.Baseline
MENUBUS_NAME=org.menubus.MenuBus1
BUS_LIFETIME=1200   # seconds: upper bound on the private bus's life

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        -n) CALLS="${2:?-n needs a value}"; shift 2 ;;
        --rounds) ROUNDS="${2:?--rounds needs a value}"; shift 2 ;;
        --warmup) WARMUP="${2:?--warmup needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench/roundtrips"
cd "$ROOT"

# --- prerequisites (checked, never installed) ---------------------------------
missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists dbus-1 || missing+=(libdbus-1-dev)
elif [ ! -e /usr/include/dbus-1.0/dbus/dbus.h ]; then
    missing+=(libdbus-1-dev)
fi
command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus-daemon)
command -v dbus-send >/dev/null 2>&1 || missing+=(dbus-bin)
command -v timeout >/dev/null 2>&1 || missing+=(coreutils)
if [ ${#missing[@]} -gt 0 ]; then
    echo "run.sh: missing: ${missing[*]}" >&2
    echo "install with:  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
if [ "$BUILD" = 1 ] && ! command -v swift >/dev/null 2>&1; then
    echo "run.sh: swift is not on PATH (needed to build menubusd)" >&2
    exit 1
fi

# --- cleanup --------------------------------------------------------------------
TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-bench.XXXXXX")"
BUS_PID="" MENUBUSD_PID="" BASELINE_PID="" JOB_PID=""

# shellcheck source=bench/lib/lib.sh
. "$ROOT/bench/lib/lib.sh"

cleanup() {
    set +e
    stop "$JOB_PID"
    stop "$MENUBUSD_PID"
    stop "$BASELINE_PID"
    stop "$BUS_PID"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM


# --- build ------------------------------------------------------------------------
if [ "$BUILD" = 1 ]; then
    echo "building menubusd (swift build -c release --product menubusd)..." >&2
    if ! job timeout 900 swift build -c release --product menubusd >"$TMP/build.log" 2>&1; then
        tail -n 30 "$TMP/build.log" >&2
        echo "run.sh: swift build failed" >&2
        exit 1
    fi
fi
MENUBUSD="$ROOT/.build/release/menubusd"
if [ ! -x "$MENUBUSD" ]; then
    echo "run.sh: no release menubusd at $MENUBUSD (run without --no-build)" >&2
    exit 1
fi

DBUS_FLAGS=$(pkg-config --cflags --libs dbus-1)
# shellcheck disable=SC2086
gcc -O2 -Wall -Wextra -o "$TMP/c-baseline-server" "$BENCH/c-baseline-server.c" $DBUS_FLAGS
# shellcheck disable=SC2086
gcc -O2 -Wall -Wextra -o "$TMP/rtt-client" "$BENCH/rtt-client.c" $DBUS_FLAGS

# --- private bus and servers --------------------------------------------------------
start_private_bus run.sh

"$MENUBUSD" --address "$ADDR" 2>"$TMP/menubusd.log" &
MENUBUSD_PID=$!
"$TMP/c-baseline-server" --address "$ADDR" "$BASELINE_NAME" 2>"$TMP/baseline.log" &
BASELINE_PID=$!

for name in "$MENUBUS_NAME" "$BASELINE_NAME"; do
    ok=0
    for _ in $(seq 1 100); do   # at most ~10 s
        if has_owner "$name"; then ok=1; break; fi
        if ! kill -0 "$MENUBUSD_PID" 2>/dev/null || ! kill -0 "$BASELINE_PID" 2>/dev/null; then break; fi
        sleep 0.1
    done
    if [ "$ok" != 1 ]; then
        echo "run.sh: $name was not owned within 10 s" >&2
        cat "$TMP/menubusd.log" "$TMP/baseline.log" >&2
        exit 1
    fi
done

# --- measure --------------------------------------------------------------------------
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "## Manager round trips"
echo
echo "- command: bench/roundtrips/run.sh -n $CALLS --rounds $ROUNDS --warmup $WARMUP"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, ${CPU:-unknown CPU}, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"; then
    [ -z "$(git -C "$ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ] ||
        COMMIT="$COMMIT + uncommitted changes in Sources/ or Package.swift"
else
    COMMIT="unknown (not a git checkout)"
fi
echo "- menubusd: $("$MENUBUSD" --version 2>/dev/null || echo '?'), release build of $COMMIT"
echo "- $CALLS blocking calls of each kind per server, in $ROUNDS interleaved rounds, after $WARMUP warm-up calls"
echo

CLIENT_TIMEOUT=$(( 60 + CALLS / 20 ))
if ! job timeout "$CLIENT_TIMEOUT" "$TMP/rtt-client" --address "$ADDR" -n "$CALLS" --rounds "$ROUNDS" \
        --warmup "$WARMUP" --tsv "$MENUBUS_NAME" "$BASELINE_NAME" >"$TMP/result.tsv"; then
    echo "run.sh: rtt-client failed or timed out after ${CLIENT_TIMEOUT}s" >&2
    exit 1
fi

awk -F'\t' -v mb="$MENUBUS_NAME" -v bl="$BASELINE_NAME" -v target="$TARGET" '
function label(d) { return d == mb ? "menubusd" : d == bl ? "C libdbus baseline" : "dbus-daemon (floor)" }
function callname(k) { return k == "ping" ? "`Peer.Ping`" : k == "getall" ? "`Properties.GetAll`" : "`GetId` (bus)" }
$1 == "total" {
    rows[++n] = sprintf("| %s | %s | %.1f | %.1f | %.0f |", callname($2), label($3), $5 / 1000, $7 / 1000, $9)
    p50[$2, $3] = $5
}
$1 == "round" && $3 == "getall" { rp50[$2, $4] = $6; if ($2 > nr) nr = $2 }
END {
    print "| call | server | p50 µs | p99 µs | calls/s |"
    print "| --- | --- | ---: | ---: | ---: |"
    for (i = 1; i <= n; i++) print rows[i]
    print ""
    ratio = p50["getall", mb] / p50["getall", bl]
    printf "- GetAll p50 ratio menubusd / C baseline: **%.2fx** (target <= %.1fx)\n", ratio, target
    printf "- Ping p50 ratio menubusd / C baseline: %.2fx\n", p50["ping", mb] / p50["ping", bl]
    printf "- GetAll minus Ping (p50): menubusd %.1f µs, C baseline %.1f µs\n",
        (p50["getall", mb] - p50["ping", mb]) / 1000, (p50["getall", bl] - p50["ping", bl]) / 1000
    # Per-round GetAll ratios: how stable the comparison is.
    for (r = 1; r <= nr; r++) rr[r] = rp50[r, mb] / rp50[r, bl]
    for (i = 1; i <= nr; i++) for (j = i + 1; j <= nr; j++) if (rr[j] < rr[i]) { t = rr[i]; rr[i] = rr[j]; rr[j] = t }
    if (nr > 0) printf "- per-round GetAll p50 ratio: median %.2fx, quartiles %.2fx-%.2fx, range %.2fx-%.2fx over %d rounds\n",
        rr[int((nr + 1) / 2)], rr[int((nr + 3) / 4)], rr[int((3 * nr + 3) / 4)], rr[1], rr[nr], nr
    print ""
    if (ratio <= target) printf "TARGET MET: menubusd GetAll p50 is %.2fx the C baseline (<= %.1fx)\n", ratio, target
    else printf "TARGET NOT MET: menubusd GetAll p50 is %.2fx the C baseline (> %.1fx)\n", ratio, target
}' "$TMP/result.tsv"

echo
rss() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | tr -s ' ' || echo "?"; }
echo "- load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- menubusd RSS after the run: $(rss "$MENUBUSD_PID" VmRSS) (peak $(rss "$MENUBUSD_PID" VmHWM)); C baseline: $(rss "$BASELINE_PID" VmRSS)"
exit 0
