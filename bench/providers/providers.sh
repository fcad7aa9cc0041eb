#!/usr/bin/env bash
# Declared providers: time from choosing a provider's item in an edit menu
# to replace-selection at the app, for a provider whose process is not
# running (D-Bus activation included) beside the same provider running.
#
#   bench/providers/providers.sh [-n SAMPLES] [--no-build]
#
# Builds menubusd and menubus-cli (release; the bundled providers), starts a private
# dbus-daemon whose configuration has a service directory, declares the
# bundled Make Uppercase (data/providers) in a temp XDG_DATA_HOME, and runs
# bench/providers/providers-client.py: SAMPLES choices with the provider stopped before
# each, then SAMPLES with it running. Prints a markdown table of medians.
# Installs nothing; stops everything it started.
set -euo pipefail

SAMPLES=20
BUILD=1
BUS_LIFETIME=600
while [ $# -gt 0 ]; do
    case "$1" in
        -n) SAMPLES="${2:?-n needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "providers.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
if [ "$BUILD" = 1 ]; then
    swift build -c release --product menubusd >/dev/null
    swift build -c release --product menubus-cli >/dev/null
fi
BIN="$(swift build -c release --show-bin-path)"

TMP="$(mktemp -d)"
JOB_PID=""
BUS_PID=""
DAEMON_PID=""
# shellcheck source=lib.sh
. "$ROOT/bench/lib/lib.sh"
cleanup() {
    stop "$DAEMON_PID"
    stop "$BUS_PID"
    [ -n "${KEEP:-}" ] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/services" "$TMP/data/menubus/providers" "$TMP/config" "$TMP/state"
cp data/providers/org.menubus.TextTransforms.Uppercase.provider "$TMP/data/menubus/providers/"
link_provider
printf '[D-BUS Service]\nName=org.menubus.TextTransforms\nExec=%s text\n' "$TMP/menubus-provider" \
    > "$TMP/services/org.menubus.TextTransforms.service"
start_activating_bus providers.sh
export DBUS_SESSION_BUS_ADDRESS="$ADDR" XDG_DATA_HOME="$TMP/data" XDG_DATA_DIRS="$TMP/none" \
    XDG_CONFIG_HOME="$TMP/config" XDG_STATE_HOME="$TMP/state"
"$BIN/menubusd" 2>"$TMP/menubusd.log" &
DAEMON_PID=$!
for _ in $(seq 1 100); do has_owner org.menubus.MenuBus1 && break; sleep 0.05; done

job /usr/bin/python3 "$ROOT/bench/providers/providers-client.py" \
    menubus:provider:org.menubus.TextTransforms.Uppercase org.menubus.TextTransforms "$SAMPLES" > "$TMP/out"

median() { tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
cold=$(grep '^cold' "$TMP/out" | cut -d' ' -f2-)
warm=$(grep '^warm' "$TMP/out" | cut -d' ' -f2-)
cold_median=$(median <<<"$cold")
warm_median=$(median <<<"$warm")
first() { awk '{print $1}'; }
last() { awk '{print $NF}'; }
echo "| provider | samples | median ms | min ms | max ms |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| declared, not running (activation included) | $SAMPLES | $cold_median | $(first <<<"$cold") | $(last <<<"$cold") |"
echo "| running | $SAMPLES | $warm_median | $(first <<<"$warm") | $(last <<<"$warm") |"
awk -v c="$cold_median" -v w="$warm_median" 'BEGIN {printf "\nratio not running / running: %.1fx; activation adds %.1f ms\n", c / w, c - w}'
if grep -q '^<4>' "$TMP/menubusd.log"; then
    echo "menubusd warned:" >&2
    grep '^<4>' "$TMP/menubusd.log" >&2
fi
