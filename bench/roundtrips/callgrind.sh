#!/usr/bin/env bash
# Where a round trip's CPU goes: instructions per call, menubusd against the
# C baseline, split by library (libdbus, Swift runtime, libc, own code).
#
#   bench/roundtrips/callgrind.sh [--no-build]
#
# Runs both servers under valgrind --tool=callgrind on one private bus, twice
# per call kind (1000 and 6000 calls), and prints (Ir at 6000 - Ir at 1000) /
# 5000, so start-up and shut-down cancel out. Needs valgrind; installs
# nothing. Takes about a minute; everything it starts is stopped at exit.
set -euo pipefail

BUILD=1
[ "${1:-}" = "--no-build" ] && BUILD=0
case "${1:-}" in -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

for tool in gcc pkg-config valgrind callgrind_annotate dbus-daemon dbus-send timeout; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "callgrind.sh: $tool is missing; install with:" >&2
        echo "  sudo apt-get install -y --no-install-recommends gcc pkg-config libdbus-1-dev valgrind" >&2
        exit 1
    fi
done

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-callgrind.XXXXXX")"
PIDS=()
cleanup() {
    set +e
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$BUILD" = 1 ]; then
    timeout 900 swift build -c release --product menubusd >"$TMP/build.log" 2>&1 ||
        { tail -n 30 "$TMP/build.log" >&2; exit 1; }
fi
MENUBUSD="$ROOT/.build/release/menubusd"
DBUS_FLAGS=$(pkg-config --cflags --libs dbus-1)
# shellcheck disable=SC2086
gcc -O2 -g -o "$TMP/c-baseline-server" bench/roundtrips/c-baseline-server.c $DBUS_FLAGS
# shellcheck disable=SC2086
gcc -O2 -g -o "$TMP/rtt-client" bench/roundtrips/rtt-client.c $DBUS_FLAGS

owned() {
    timeout 5 dbus-send --bus="$1" --print-reply=literal --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "string:$2" 2>/dev/null | grep -q true
}

profile() { # kind calls
    local kind=$1 n=$2 out="$TMP/$1.$2" addr="" bus mb bl
    timeout 300 dbus-daemon --session --nofork --print-address=1 >"$out.addr" 2>/dev/null &
    bus=$!; PIDS+=("$bus")
    for _ in $(seq 1 100); do addr=$(head -n 1 "$out.addr" 2>/dev/null || true); [ -n "$addr" ] && break; sleep 0.05; done
    timeout 250 valgrind --tool=callgrind --callgrind-out-file="$out.menubusd" \
        "$MENUBUSD" --address "$addr" 2>/dev/null &
    mb=$!; PIDS+=("$mb")
    timeout 250 valgrind --tool=callgrind --callgrind-out-file="$out.baseline" \
        "$TMP/c-baseline-server" --address "$addr" org.menubus.Baseline 2>/dev/null &
    bl=$!; PIDS+=("$bl")
    for _ in $(seq 1 150); do
        owned "$addr" org.menubus.MenuBus1 && owned "$addr" org.menubus.Baseline && break
        sleep 0.2
    done
    timeout 240 "$TMP/rtt-client" --address "$addr" -n "$n" --rounds 10 --warmup 0 --only "$kind" \
        org.menubus.MenuBus1 org.menubus.Baseline >/dev/null
    kill -TERM "$mb" "$bl"; wait "$mb" "$bl" || true
    kill -TERM "$bus"; wait "$bus" 2>/dev/null || true
}

bylib() { # callgrind file -> "library Ir" lines
    callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null |
        grep -E '^ *[0-9,]+ \(.*\]$' | sed 1d |
        awk '{gsub(",", "", $1); lib = $NF; sub(/.*\//, "", lib); sub(/\]$/, "", lib);
              if (lib ~ /^libdbus/) lib = "libdbus"; else if (lib ~ /^libswift/) lib = "Swift runtime";
              else if (lib ~ /^libc\.so/) lib = "libc"; else if (lib == "menubusd" || lib == "c-baseline-server") lib = "own code";
              else lib = "other"; s[lib] += $1 } END { for (l in s) print l "\t" s[l] }' | sort
}

for kind in ping getall; do
    profile "$kind" 1000
    profile "$kind" 6000
done

echo "| call | server | libdbus | Swift runtime | libc | own code | other | total Ir/call |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for kind in ping getall; do
    for server in menubusd baseline; do
        join -t$'\t' -a1 -e0 -o 0,1.2,2.2 <(bylib "$TMP/$kind.6000.$server") <(bylib "$TMP/$kind.1000.$server") |
            awk -F'\t' -v k="$kind" -v s="$server" '
                { d[$1] = ($2 - $3) / 5000; t += d[$1] }
                END { printf "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", k, s,
                      d["libdbus"], d["Swift runtime"], d["libc"], d["own code"], d["other"], t }'
    done
done
