#!/usr/bin/env bash
# Memory budgets and undo under hostile load, against a release menubusd on
# a private bus: RSS with 1 and 50 hostile connections filling their budgets
# (bench/load/hostile.py) and 2 s after they leave; start-up (exec to name owned)
# (exec to the first answer) with an empty and a filled undo store; another app's GetEditMenu p50/p99
# with and without a document compacting at its quota (bench/load/undo-load.py).
# Usage: bench/load/budgets.sh [--undo]   (about two minutes; prints a Markdown table;
#        --undo measures only the undo rows: start-up and GetEditMenu latency)
#        bench/load/budgets.sh --held   only resident memory per counted byte
#        (Stats' held-bytes) for four shapes of contexts (bench/load/held.py)
#        bench/load/budgets.sh --latency RUNS [MENUBUSD...]   only the GetEditMenu rows:
#        RUNS rounds of (quiet, during compaction) for each binary in turn (default
#        the release build of this tree), a fresh daemon and store each round;
#        prints every round and the medians per binary: quiet, while another
#        app's 40 MiB document compacts taking 1 MiB steps, and the same with
#        --step-kib N KiB steps (default 64: the compaction with little on the
#        bus); with --floor also the same 1 MiB calls refused before decoding,
#        and a minimal C libdbus server's Ping quiet and during those calls
#        (what the bus alone costs any server)
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/../.."
TMP="$(mktemp -d /tmp/menubus-budgets.XXXXXX)"
BUS_LIFETIME=900
JOB_PID=""
DAEMON_PID=""
. bench/lib/lib.sh
cleanup() { stop "$DAEMON_PID"; stop "${BUS_PID:-}"; rm -rf "$TMP"; }
trap cleanup EXIT
PY=/usr/bin/python3

LATENCY_RUNS=0; BINARIES=(); STEP_KIB=64; RQ99=""; RB99=""; RQ50=""; RB50=""
if [ "${1:-}" = "--latency" ]; then
    LATENCY_RUNS="${2:?--latency RUNS [--floor] [--step-kib N] [MENUBUSD...]}"; shift 2
    FLOOR=0; [ "${1:-}" = "--floor" ] && { FLOOR=1; shift; }
    [ "${1:-}" = "--step-kib" ] && { STEP_KIB="${2:?--step-kib N}"; shift 2; }
    BINARIES=("$@")
    if [ "$FLOOR" = 1 ]; then
        gcc -O2 -o "$TMP/c-baseline-server" bench/roundtrips/c-baseline-server.c $(pkg-config --cflags --libs dbus-1)
    fi
fi
if [ "${#BINARIES[@]}" = 0 ]; then
    echo "building (swift build -c release --product menubusd)..." >&2
    swift build -c release --product menubusd >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; exit 1; }
    BINARIES=(.build/release/menubusd)
fi
MENUBUSD="${BINARIES[0]}"
start_private_bus budgets

kib() { awk -v k="$1" '$1 == k ":" { print $2 }' "/proc/$DAEMON_PID/status"; }
now_ms() { date +%s%3N; }

# start_daemon STATE_DIR: starts menubusd, waits for its name; sets DAEMON_PID and STARTUP_MS.
start_daemon() {
    local begin; begin=$(now_ms)
    "$MENUBUSD" --address "$ADDR" --state-dir "$1" 2>>"$TMP/menubusd.log" &
    DAEMON_PID=$!
    for _ in $(seq 1 2000); do
        has_owner org.menubus.MenuBus1 && break
        sleep 0.005
    done
    # Answered once the name is owned and the undo store loaded (the loop
    # serves nothing before): what an app waits for.
    timeout 60 dbus-send --bus="$ADDR" --print-reply=literal --reply-timeout=60000 --dest=org.menubus.MenuBus1 \
        /org/menubus/MenuBus1 org.freedesktop.DBus.Properties.Get \
        string:org.menubus.MenuBus1 string:Version >/dev/null
    STARTUP_MS=$(( $(now_ms) - begin ))
}

# undo_stats: "undo-memory-bytes=… undo-disk-bytes=…" from the daemon's Stats.
undo_stats() {
    dbus-send --bus="$ADDR" --print-reply --dest=org.menubus.MenuBus1 /org/menubus/MenuBus1 \
        org.freedesktop.DBus.Properties.Get string:org.menubus.MenuBus1 string:Stats |
        awk '/"undo-(memory|disk)-bytes"/ { name = $2; gsub(/"/, "", name); getline; printf "%s=%s ", name, $3 }'
}

# hostile N [TAG]: prints "start warm peak_during rss_full rss_after" and what
# hostile.py and Stats said. start is the daemon 0.5 s after its first answer;
# warm the same after one ordinary app's visit (hostile.py ordinary: a small
# context, its menu, one undo step), which maps the code and loads the data
# any first app needs (provider files, translations, the journal's code), so
# that after - warm is what the hostile load alone left.
hostile() {
    start_daemon "$TMP/state-hostile-$1${2:-}"
    sleep 0.5
    local start; start=$(kib VmRSS)
    "$PY" bench/load/hostile.py "$ADDR" ordinary >/dev/null
    sleep 0.5
    local warm; warm=$(kib VmRSS)
    mkfifo "$TMP/hold-$1${2:-}"
    "$PY" bench/load/hostile.py "$ADDR" "$1" <"$TMP/hold-$1${2:-}" >"$TMP/hostile-$1${2:-}.out" &
    local pid=$!
    exec 7>"$TMP/hold-$1${2:-}"
    for _ in $(seq 1 3000); do grep -q FULL "$TMP/hostile-$1${2:-}.out" 2>/dev/null && break; sleep 0.1; done
    local full; full=$(kib VmRSS)
    local peak; peak=$(kib VmHWM)
    exec 7>&-
    wait "$pid" || true
    sleep 2
    local after; after=$(kib VmRSS)
    echo "$start $warm $peak $full $after $(cat "$TMP/hostile-$1${2:-}.out") after: $(undo_stats)"
    stop "$DAEMON_PID"; DAEMON_PID=""
}

calls_rss() {  # calls_rss MODE: a fresh daemon, hostile.py MODE; prints "start peak after" (KiB)
    start_daemon "$TMP/state-$1"
    sleep 0.5
    local start; start=$(kib VmRSS)
    "$PY" bench/load/hostile.py "$ADDR" "$1" >/dev/null
    local peak; peak=$(kib VmHWM)
    sleep 2
    echo "$start $peak $(kib VmRSS)"
    stop "$DAEMON_PID"; DAEMON_PID=""
}

# over AFTER START: how far AFTER is over START, in percent with one decimal.
over() { awk -v a="$1" -v s="$2" 'BEGIN { printf "%.1f%%", (a - s) * 100 / s }'; }

median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

if [ "${1:-}" = "--held" ]; then
    echo "| shape (4 connections) | counted (held-bytes) | RSS grew | RSS / counted |"
    echo "| --- | --- | --- | --- |"
    for shape in titles menu tiny deferred; do
        start_daemon "$TMP/state-held-$shape"
        line=$("$PY" bench/load/held.py "$ADDR" "$shape" 4)
        stop "$DAEMON_PID"; DAEMON_PID=""
        value() { echo "$line" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
        echo "| $shape ($(value contexts) contexts) | $(( $(value counted) >> 10 )) KiB | $(( $(value grew) >> 10 )) KiB | $(value ratio)x |"
    done
    exit 0
fi

if [ "$LATENCY_RUNS" -gt 0 ]; then
    # field NAME LINE: the value of NAME= in undo-load.py's "p50=… p99=… max=…".
    field() { echo "$2" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
    ratio() { awk -v b="$1" -v q="$2" 'BEGIN { if (b == "-" || q == "-") print "-"; else printf "%.1f", b / q }'; }
    # "p50 / p99", and the compactions finished while measuring if counted.
    pair() {
        local c; c=$(field compactions "$1")
        echo "$(field p50 "$1") / $(field p99 "$1")${c:+ ($c compactions)}"
    }
    declare -A QP50 QP99 BP50 BP99 SP50 SP99 FP50 FP99
    SMALL="p50=- p99=-"; FLOOR_LINE="p50=- p99=-"
    echo "| round | menubusd | quiet p50 / p99 ms | compaction, 1 MiB steps p50 / p99 ms | p99 ratio | compaction, $STEP_KIB KiB steps p50 / p99 ms | p99 ratio | floor p50 / p99 ms |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
    for run in $(seq 1 "$LATENCY_RUNS"); do
        for MENUBUSD in "${BINARIES[@]}"; do
            start_daemon "$TMP/state-latency-$run-$(basename "$MENUBUSD")"
            quiet=$("$PY" bench/load/undo-load.py "$ADDR" latency 1000)
            busy=$(UNDO_LOAD_STATE_DIR="$TMP/state-latency-$run-$(basename "$MENUBUSD")" \
                "$PY" bench/load/undo-load.py "$ADDR" latency 1000 churn)
            stop "$DAEMON_PID"; DAEMON_PID=""
            rm -rf "$TMP/state-latency-$run-$(basename "$MENUBUSD")"
            # The same 40 MiB compacting, in small steps: a fresh store, so
            # the 1 MiB document's journal is not in the way.
            start_daemon "$TMP/state-latency-$run-$(basename "$MENUBUSD")"
            SMALL=$(UNDO_LOAD_STATE_DIR="$TMP/state-latency-$run-$(basename "$MENUBUSD")" \
                "$PY" bench/load/undo-load.py "$ADDR" latency 1000 churn $((STEP_KIB << 10)))
            [ "$FLOOR" = 1 ] && FLOOR_LINE=$("$PY" bench/load/undo-load.py "$ADDR" latency 1000 floor)
            stop "$DAEMON_PID"; DAEMON_PID=""
            rm -rf "$TMP/state-latency-$run-$(basename "$MENUBUSD")"
            QP50[$MENUBUSD]+=" $(field p50 "$quiet")"; QP99[$MENUBUSD]+=" $(field p99 "$quiet")"
            BP50[$MENUBUSD]+=" $(field p50 "$busy")"; BP99[$MENUBUSD]+=" $(field p99 "$busy")"
            SP50[$MENUBUSD]+=" $(field p50 "$SMALL")"; SP99[$MENUBUSD]+=" $(field p99 "$SMALL")"
            FP50[$MENUBUSD]+=" $(field p50 "$FLOOR_LINE")"; FP99[$MENUBUSD]+=" $(field p99 "$FLOOR_LINE")"
            q99=$(field p99 "$quiet")
            echo "| $run | $MENUBUSD | $(pair "$quiet") | $(pair "$busy") | $(ratio "$(field p99 "$busy")" "$q99")× | $(pair "$SMALL") | $(ratio "$(field p99 "$SMALL")" "$q99")× | $(pair "$FLOOR_LINE") |"
        done
        if [ "$FLOOR" = 1 ]; then
            # The bus alone: a minimal C libdbus server (bench/roundtrips/c-baseline-server.c)
            # owns the name; Peer.Ping quiet and during the same 1 MiB calls.
            "$TMP/c-baseline-server" --address "$ADDR" org.menubus.MenuBus1 2>/dev/null &
            DAEMON_PID=$!
            for _ in $(seq 1 200); do has_owner org.menubus.MenuBus1 && break; sleep 0.01; done
            rquiet=$("$PY" bench/load/undo-load.py "$ADDR" ping-latency 1000)
            rbusy=$("$PY" bench/load/undo-load.py "$ADDR" ping-latency 1000 floor)
            stop "$DAEMON_PID"; DAEMON_PID=""
            RQ99+=" $(field p99 "$rquiet")"; RB99+=" $(field p99 "$rbusy")"; RQ50+=" $(field p50 "$rquiet")"; RB50+=" $(field p50 "$rbusy")"
            echo "| $run | C libdbus server, Ping | $(pair "$rquiet") | - | - | - | - | $(pair "$rbusy") ($(ratio "$(field p99 "$rbusy")" "$(field p99 "$rquiet")")× its quiet p99) |"
        fi
    done
    echo
    echo "| menubusd | median quiet p50 / p99 ms | compaction, 1 MiB steps | ratio of median p99s | compaction, $STEP_KIB KiB steps | ratio of median p99s | median floor p50 / p99 ms |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    for MENUBUSD in "${BINARIES[@]}"; do
        q99=$(echo ${QP99[$MENUBUSD]} | median); b99=$(echo ${BP99[$MENUBUSD]} | median); s99=$(echo ${SP99[$MENUBUSD]} | median)
        echo "| $MENUBUSD | $(echo ${QP50[$MENUBUSD]} | median) / $q99 | $(echo ${BP50[$MENUBUSD]} | median) / $b99 | $(ratio "$b99" "$q99")× | $(echo ${SP50[$MENUBUSD]} | median) / $s99 | $(ratio "$s99" "$q99")× | $(echo ${FP50[$MENUBUSD]} | median) / $(echo ${FP99[$MENUBUSD]} | median) |"
    done
    if [ "$FLOOR" = 1 ]; then
        rq99=$(echo $RQ99 | median); rb99=$(echo $RB99 | median)
        echo "| C libdbus server, Ping | $(echo $RQ50 | median) / $rq99 | - | - | - | - | $(echo $RB50 | median) / $rb99 ($(ratio "$rb99" "$rq99")×) |"
    fi
    exit 0
fi

UNDO_ONLY=0; [ "${1:-}" = "--undo" ] && UNDO_ONLY=1
if [ "$UNDO_ONLY" = 0 ]; then
    read -r s1 w1 p1 f1 a1 rest1 < <(hostile 1)
    read -r s50 w50 p50 f50 a50 rest50 < <(hostile 50)
    # One that also fills its undo quota: 64 steps of 1 MiB in one document.
    read -r su wu pu fu au restu < <(HOSTILE_UNDO_MIB=64 hostile 1 -undo)
    read -r su50 wu50 pu50 fu50 au50 restu50 < <(HOSTILE_UNDO_MIB=64 hostile 50 -undo)
    # Large calls refused once decoded (nothing stored, all of it freed),
    # and one call of 1.9 million tiny values within the byte limit.
    read -r sl pl al < <(calls_rss large-calls)
    read -r sv pv av < <(calls_rss many-values)
fi

# Start-up: empty store, then 48 documents of 8 MiB each (384 MiB of journals);
# five starts of each, alternating, median and every run.
start_daemon "$TMP/state-undo"
"$PY" bench/load/undo-load.py "$ADDR" fill 48 8
stop "$DAEMON_PID"; DAEMON_PID=""
store_mib=$(du -sm "$TMP/state-undo" | cut -f1)
empty_runs=""; full_runs=""
for run in 1 2 3 4 5; do
    start_daemon "$TMP/state-empty-$run"; empty_runs="$empty_runs $STARTUP_MS"; empty_rss=$(kib VmRSS)
    stop "$DAEMON_PID"; DAEMON_PID=""
    start_daemon "$TMP/state-undo"; full_runs="$full_runs $STARTUP_MS"; full_rss=$(kib VmRSS)
    stop "$DAEMON_PID"; DAEMON_PID=""
done
empty_ms=$(echo $empty_runs | median); full_ms=$(echo $full_runs | median)
ratio=$(awk -v f="$full_ms" -v e="$empty_ms" 'BEGIN { printf "%.2f", f / e }')

# GetEditMenu of another app, without and with a document compacting at its quota.
start_daemon "$TMP/state-latency"
quiet=$("$PY" bench/load/undo-load.py "$ADDR" latency 1000)
busy=$("$PY" bench/load/undo-load.py "$ADDR" latency 1000 churn)
stop "$DAEMON_PID"; DAEMON_PID=""

echo "| measurement | value |"
echo "| --- | --- |"
[ "$UNDO_ONLY" = 0 ] && cat <<TABLE
| RSS at start (1 hostile run) | $((s1 / 1024)) MiB |
| RSS, 1 hostile connection at its budget | $((f1 / 1024)) MiB (peak $((p1 / 1024)) MiB; $rest1) |
| RSS 2 s after it left | $((a1 / 1024)) MiB, $a1 KiB ($(over "$a1" "$s1") over start, $(over "$a1" "$w1") over $w1 KiB after an ordinary app) |
| RSS at start (50 hostile run) | $((s50 / 1024)) MiB |
| RSS, 50 hostile connections at their budgets | $((f50 / 1024)) MiB (peak $((p50 / 1024)) MiB; $rest50) |
| RSS 2 s after they left | $((a50 / 1024)) MiB, $a50 KiB ($(over "$a50" "$s50") over start, $(over "$a50" "$w50") over $w50 KiB after an ordinary app) |
| RSS, 1 hostile connection at its budget and its undo quota | $((fu / 1024)) MiB (start $((su / 1024)) MiB, peak $((pu / 1024)) MiB, $(( (pu - su) / 1024 )) MiB over start; $restu) |
| RSS 2 s after it left | $((au / 1024)) MiB, $au KiB (start $su KiB) ($(over "$au" "$su") over start, $(over "$au" "$wu") over $wu KiB after an ordinary app) |
| RSS, 50 hostile connections at their budgets and undo quotas | $((fu50 / 1024)) MiB (start $((su50 / 1024)) MiB, peak $((pu50 / 1024)) MiB, $(( (pu50 - su50) / 1024 )) MiB over start; $restu50) |
| RSS 2 s after they left | $((au50 / 1024)) MiB, $au50 KiB (start $su50 KiB) ($(over "$au50" "$su50") over start, $(over "$au50" "$wu50") over $wu50 KiB after an ordinary app) |
| RSS 2 s after five 2 MiB calls decoded and refused | $((al / 1024)) MiB (start $((sl / 1024)) MiB, peak $((pl / 1024)) MiB; $(over "$al" "$sl") over start) |
| RSS 2 s after one call of 1.9 million tiny values, refused | $((av / 1024)) MiB (start $((sv / 1024)) MiB, peak $((pv / 1024)) MiB) |
TABLE
cat <<TABLE
| start-up, empty store (median of 5) | ${empty_ms} ms (runs:${empty_runs}; RSS $((empty_rss / 1024)) MiB) |
| start-up, ${store_mib} MiB store (48 documents, median of 5) | ${full_ms} ms (runs:${full_runs}; RSS $((full_rss / 1024)) MiB), ${ratio}× empty |
| GetEditMenu ms, quiet | $quiet |
| GetEditMenu ms, a document compacting at its quota | $busy |
TABLE
