#!/usr/bin/env bash
# The desktop menu protocols' big reads: menubusd against the reference
# servers, on one private bus, the same 50-item menu everywhere (10
# sections of 5, the last entry a submenu of 4; bench/exports/exports-menu.h).
#
#   bench/exports/exports.sh [-n CALLS] [--rounds R] [--warmup W] [--no-build] [--scratch-path DIR]
#
# Builds menubusd (release; --scratch-path as for swift build) and, into a
# temp dir with gcc and pkg-config, a libdbusmenu-glib server, a GLib
# g_dbus_connection_export_menu_model server, a "floor" server that answers
# with copies of their recorded replies, and the timing client
# bench/exports/exports-client.c. Times com.canonical.dbusmenu GetLayout(0, -1, [])
# (menubusd vs libdbusmenu-glib) and org.gtk.Menus Start([0, 1]) (menubusd
# vs GLib), every reply read completely, in interleaved rounds, and prints
# a markdown table with the ratios against the targets (<= 0.5x each).
# Installs nothing (scripts/setup does). Exits 0 whatever the numbers; 1 if
# it cannot measure.
set -euo pipefail

CALLS=4000
ROUNDS=40
WARMUP=300
BUILD=1
SCRATCH=""
TARGET=0.5
MENUBUS_NAME=org.menubus.MenuBus1
DBUSMENU_NAME=org.menubus.Bench.Dbusmenu
GMENU_NAME=org.menubus.Bench.GMenu
REPLAY_NAME=org.menubus.Bench.Floor
BUS_LIFETIME=1200   # seconds: upper bound on the private bus's life

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        -n) CALLS="${2:?-n needs a value}"; shift 2 ;;
        --rounds) ROUNDS="${2:?--rounds needs a value}"; shift 2 ;;
        --warmup) WARMUP="${2:?--warmup needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --scratch-path) SCRATCH="${2:?--scratch-path needs a value}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "exports.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/bench/exports"
SCRATCH="${SCRATCH:-$ROOT/.build}"
cd "$ROOT"

# --- prerequisites (checked, never installed) -----------------------------------
missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists dbus-1 || missing+=(libdbus-1-dev)
    pkg-config --exists gio-2.0 || missing+=(libglib2.0-dev)
    pkg-config --exists dbusmenu-glib-0.4 || missing+=(libdbusmenu-glib-dev)
fi
command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus-daemon)
command -v dbus-send >/dev/null 2>&1 || missing+=(dbus-bin)
if [ ${#missing[@]} -gt 0 ]; then
    echo "exports.sh: missing: ${missing[*]} (scripts/setup installs them)" >&2
    exit 1
fi
if [ "$BUILD" = 1 ] && ! command -v swift >/dev/null 2>&1; then
    echo "exports.sh: swift is not on PATH (needed to build menubusd)" >&2
    exit 1
fi

# --- cleanup ----------------------------------------------------------------------
TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-exports.XXXXXX")"
BUS_PID="" MENUBUSD_PID="" DBUSMENU_PID="" GMENU_PID="" REPLAY_PID="" JOB_PID=""

# shellcheck source=bench/lib/lib.sh
. "$ROOT/bench/lib/lib.sh"

cleanup() {
    set +e
    stop "$JOB_PID"
    stop "$MENUBUSD_PID"
    stop "$DBUSMENU_PID"
    stop "$GMENU_PID"
    stop "$REPLAY_PID"
    stop "$BUS_PID"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM


# --- build ----------------------------------------------------------------------------
if [ "$BUILD" = 1 ]; then
    echo "building menubusd (swift build -c release --product menubusd --scratch-path $SCRATCH)..." >&2
    if ! job timeout 900 swift build -c release --product menubusd --scratch-path "$SCRATCH" >"$TMP/build.log" 2>&1; then
        tail -n 30 "$TMP/build.log" >&2
        echo "exports.sh: swift build failed" >&2
        exit 1
    fi
fi
MENUBUSD="$SCRATCH/release/menubusd"
if [ ! -x "$MENUBUSD" ]; then
    echo "exports.sh: no release menubusd at $MENUBUSD (run without --no-build)" >&2
    exit 1
fi

# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -o "$TMP/exports-client" "$BENCH/exports-client.c" $(pkg-config --cflags --libs dbus-1)
# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -o "$TMP/exports-dbusmenu-server" "$BENCH/exports-dbusmenu-server.c" \
    $(pkg-config --cflags --libs dbusmenu-glib-0.4 gio-2.0)
# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -o "$TMP/exports-gmenu-server" "$BENCH/exports-gmenu-server.c" $(pkg-config --cflags --libs gio-2.0)
# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -o "$TMP/exports-replay-server" "$BENCH/exports-replay-server.c" $(pkg-config --cflags --libs dbus-1)

# --- private bus and servers -------------------------------------------------------------
start_private_bus exports.sh

"$MENUBUSD" --address "$ADDR" 2>"$TMP/menubusd.log" &
MENUBUSD_PID=$!
DBUS_SESSION_BUS_ADDRESS="$ADDR" "$TMP/exports-dbusmenu-server" "$DBUSMENU_NAME" 2>"$TMP/dbusmenu.log" &
DBUSMENU_PID=$!
DBUS_SESSION_BUS_ADDRESS="$ADDR" "$TMP/exports-gmenu-server" "$GMENU_NAME" 2>"$TMP/gmenu.log" &
GMENU_PID=$!

for name in "$MENUBUS_NAME" "$DBUSMENU_NAME" "$GMENU_NAME"; do
    ok=0
    for _ in $(seq 1 100); do   # at most ~10 s
        if has_owner "$name"; then ok=1; break; fi
        sleep 0.1
    done
    if [ "$ok" != 1 ]; then
        echo "exports.sh: $name was not owned within 10 s" >&2
        cat "$TMP/menubusd.log" "$TMP/dbusmenu.log" "$TMP/gmenu.log" >&2
        exit 1
    fi
done
# The floor records the reference servers' replies, so it starts after them.
"$TMP/exports-replay-server" "$ADDR" "$REPLAY_NAME" "$DBUSMENU_NAME" "$GMENU_NAME" 2>"$TMP/replay.log" &
REPLAY_PID=$!
ok=0
for _ in $(seq 1 100); do
    if has_owner "$REPLAY_NAME"; then ok=1; break; fi
    sleep 0.1
done
if [ "$ok" != 1 ]; then
    echo "exports.sh: the floor server did not start" >&2
    cat "$TMP/replay.log" >&2
    exit 1
fi

# --- measure -------------------------------------------------------------------------------
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "## Desktop menu protocols: GetLayout and Start"
echo
echo "- command: bench/exports/exports.sh -n $CALLS --rounds $ROUNDS --warmup $WARMUP"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, ${CPU:-unknown CPU}, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"; then
    [ -z "$(git -C "$ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ] ||
        COMMIT="$COMMIT + uncommitted changes in Sources/ or Package.swift"
else
    COMMIT="unknown (not a git checkout)"
fi
echo "- menubusd: $("$MENUBUSD" --version 2>/dev/null || echo '?'), release build of $COMMIT;" \
     "libdbusmenu-glib $(pkg-config --modversion dbusmenu-glib-0.4), GLib $(pkg-config --modversion gio-2.0)"
echo "- $CALLS blocking calls per (call, server), in $ROUNDS interleaved rounds, after $WARMUP warm-up calls;" \
     "one C libdbus client reads every value of every reply; Start is followed by an untimed End"
echo

CLIENT_TIMEOUT=$(( 120 + CALLS / 10 ))
if ! job timeout "$CLIENT_TIMEOUT" "$TMP/exports-client" --address "$ADDR" -n "$CALLS" --rounds "$ROUNDS" \
        --warmup "$WARMUP" "$MENUBUS_NAME" "$DBUSMENU_NAME" "$GMENU_NAME" "$REPLAY_NAME" >"$TMP/result.tsv"; then
    echo "exports.sh: exports-client failed or timed out after ${CLIENT_TIMEOUT}s" >&2
    cat "$TMP/menubusd.log" >&2
    exit 1
fi

awk -F'\t' -v target="$TARGET" '
function servername(s) { return s == "floor" ? "floor: recorded reply, C libdbus" : s }
function callname(k) { return k == "getlayout" ? "dbusmenu `GetLayout(0, -1, [])`" : k == "start" ? "`org.gtk.Menus.Start([0, 1])`" : "`Peer.Ping`" }
$1 == "info" { bytes[$2, $3] = $4; values[$2, $3] = $5; items[$2, $3] = $6 }
$1 == "total" {
    order[++n] = $2 SUBSEP $3
    p50[$2, $3] = $5; p90[$2, $3] = $6; p99[$2, $3] = $7; rate[$2, $3] = $9
}
$1 == "round" { rp50[$2, $3, $4] = $5; if ($2 > nr) nr = $2 }
function roundratio(kind, a, b,    r, i, j, t, rr) {
    for (r = 1; r <= nr; r++) rr[r] = rp50[r, kind, a] / rp50[r, kind, b]
    for (i = 1; i <= nr; i++) for (j = i + 1; j <= nr; j++) if (rr[j] < rr[i]) { t = rr[i]; rr[i] = rr[j]; rr[j] = t }
    return sprintf("median %.2fx, range %.2fx-%.2fx over %d rounds", rr[int((nr + 1) / 2)], rr[1], rr[nr], nr)
}
END {
    print "| call | server | reply bytes | values read | p50 µs | p90 µs | p99 µs | calls/s |"
    print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for (i = 1; i <= n; i++) {
        split(order[i], key, SUBSEP)
        printf "| %s | %s | %d | %d | %.1f | %.1f | %.1f | %.0f |\n", callname(key[1]), servername(key[2]),
            bytes[key[1], key[2]], values[key[1], key[2]], p50[key[1], key[2]] / 1000,
            p90[key[1], key[2]] / 1000, p99[key[1], key[2]] / 1000, rate[key[1], key[2]]
    }
    print ""
    g = p50["getlayout", "menubusd"] / p50["getlayout", "libdbusmenu-glib"]
    s = p50["start", "menubusd"] / p50["start", "GLib"]
    printf "- GetLayout p50 ratio menubusd / libdbusmenu-glib: **%.2fx** (target <= %.1fx); per round: %s\n",
        g, target, roundratio("getlayout", "menubusd", "libdbusmenu-glib")
    printf "- Start p50 ratio menubusd / GLib: **%.2fx** (target <= %.1fx); per round: %s\n",
        s, target, roundratio("start", "menubusd", "GLib")
    printf "- minus each server'"'"'s Ping p50: GetLayout %.1f µs vs %.1f µs, Start %.1f µs vs %.1f µs\n",
        (p50["getlayout", "menubusd"] - p50["ping", "menubusd"]) / 1000,
        (p50["getlayout", "libdbusmenu-glib"] - p50["ping", "libdbusmenu-glib"]) / 1000,
        (p50["start", "menubusd"] - p50["ping", "menubusd"]) / 1000,
        (p50["start", "GLib"] - p50["ping", "GLib"]) / 1000
    printf "- the floor (a server that only copies the recorded reply): GetLayout %.2fx libdbusmenu-glib, Start %.2fx GLib;" \
        " menubusd above the floor: GetLayout +%.1f µs, Start +%.1f µs\n",
        p50["getlayout", "floor"] / p50["getlayout", "libdbusmenu-glib"], p50["start", "floor"] / p50["start", "GLib"],
        (p50["getlayout", "menubusd"] - p50["getlayout", "floor"]) / 1000, (p50["start", "menubusd"] - p50["start", "floor"]) / 1000
    printf "- items per reply: GetLayout %d nodes (both), Start %d items (both)\n",
        items["getlayout", "menubusd"], items["start", "menubusd"]
    print ""
    printf "%s: GetLayout %.2fx libdbusmenu-glib (<= %.1fx)\n", g <= target ? "TARGET MET" : "TARGET NOT MET", g, target
    printf "%s: Start %.2fx GLib (<= %.1fx)\n", s <= target ? "TARGET MET" : "TARGET NOT MET", s, target
}' "$TMP/result.tsv"

echo
rss() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | tr -s ' ' || echo "?"; }
echo "- load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- RSS after the run: menubusd $(rss "$MENUBUSD_PID" VmRSS), libdbusmenu-glib server $(rss "$DBUSMENU_PID" VmRSS)," \
     "GLib server $(rss "$GMENU_PID" VmRSS)"
