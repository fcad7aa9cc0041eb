#!/usr/bin/env bash
# MenuBus's shims inside real apps against a hostile org.menubus.MenuBus1:
# mousepad with the GTK 3 module and featherpad with the Qt 5 theme, both
# built with AddressSanitizer, driven at random for N minutes each while
# bench/hostile/fake-menubusd.py answers with wrong signatures, 10,000
# elements, 64 KiB titles, invalid UTF-8, errors, no reply, replies 10 s
# late and dropped connections, and sends signals and calls of its own.
#
#   bench/hostile/run.sh [--minutes N | --seconds N] [--app mousepad|featherpad|both]
#                        [--seed N] [--mode MODE] [--commit REV] [--out DIR] [--no-build]
#
# --mode is the fake's first mode (cycle, random, correct, only:huge, ...;
# the steps change it). Builds the GTK 3 module and the Qt 5 theme with -fsanitize=address into
# .build/shims-asan (--commit REV: the shims of that commit, exported with
# git archive and built in a temp folder, so a run can compare trees);
# then for each app starts a private dbus-daemon and, under xvfb-run -a,
# bench/hostile/hostile.py, which starts the fake, the accessibility bus
# and the app (libasan preloaded, ASAN_OPTIONS with a log_path) through
# Tests/apps/gtk_app.py, and steps at random (see hostile.py). Prints one
# line per app:
#
#   hostile mousepad: 10 min, 1234 steps, 0 crashes, 0 asan reports, 0 hangs (worst AT-SPI answer 0.21 s), text matched
#
# then the first lines of each AddressSanitizer report and each text
# mismatch. Exits 1 when an app crashed, AddressSanitizer reported, the app
# took over 1 s to answer AT-SPI, or its text left the model. The logs
# (the fake's calls, every step, the reports) stay in --out DIR, or in a
# temp folder that is kept only when a run failed. Installs nothing; stops
# everything it started.
set -euo pipefail

SECONDS_PER_APP=600
APPS="both"
SEED=1
MODE=cycle
BUILD=1
COMMIT=""
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) SECONDS_PER_APP=$(( ${2:?--minutes needs a value} * 60 )); shift 2 ;;
        --seconds) SECONDS_PER_APP="${2:?--seconds needs a value}"; shift 2 ;;
        --app) APPS="${2:?--app needs mousepad, featherpad or both}"; shift 2 ;;
        --seed) SEED="${2:?--seed needs a value}"; shift 2 ;;
        --mode) MODE="${2:?--mode needs a value}"; shift 2 ;;
        --commit) COMMIT="${2:?--commit needs a revision}"; shift 2 ;;
        --out) OUT="${2:?--out needs a folder}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case "$APPS" in
    both) APPS="mousepad featherpad" ;;
    mousepad|featherpad) ;;
    *) echo "run.sh: --app takes mousepad, featherpad or both" >&2; exit 2 ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
for tool in /usr/bin/xvfb-run /usr/bin/xdotool /usr/libexec/at-spi-bus-launcher /usr/bin/dbus-daemon; do
    [ -x "$tool" ] || { echo "run.sh: no $tool; run scripts/setup" >&2; exit 1; }
done
for app in $APPS; do
    [ -x "/usr/bin/$app" ] || { echo "run.sh: no /usr/bin/$app; run scripts/setup" >&2; exit 1; }
done
/usr/bin/python3 -c 'import gi; gi.require_version("Atspi", "2.0"); import pyatspi, Xlib' 2>/dev/null \
    || { echo "run.sh: /usr/bin/python3 lacks pyatspi or Xlib; run scripts/setup" >&2; exit 1; }
ASAN_LIB="$(gcc -print-file-name=libasan.so)"
[ -e "$ASAN_LIB" ] || { echo "run.sh: gcc has no libasan.so (libgcc-12-dev)" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-hostile.XXXXXX")"
JOB_PID=""
BUS_PID=""
BUS_LIFETIME=$(( SECONDS_PER_APP + 900 ))
KEEP=0
[ -n "$OUT" ] && KEEP=1
OUT="${OUT:-$TMP/out}"
mkdir -p "$OUT"
# shellcheck source=../lib/lib.sh
. "$ROOT/bench/lib/lib.sh"
cleanup() {
    set +e
    stop "$JOB_PID"
    stop "$BUS_PID"
    if [ "$KEEP" = 1 ] && [ "$OUT" = "$TMP/out" ]; then
        echo "run.sh: the logs are kept in $OUT" >&2
        find "$TMP" -mindepth 1 -maxdepth 1 ! -name out -exec rm -rf {} +
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ASAN_FLAGS='-O1 -g -fsanitize=address -fno-omit-frame-pointer'
TREE="$ROOT"
if [ -n "$COMMIT" ]; then
    TREE="$TMP/tree"
    mkdir -p "$TREE"
    git -C "$ROOT" archive "$COMMIT" | tar -x -C "$TREE"
    BUILD=1
fi
SHIMS="$TREE/.build/shims-asan"
TARGETS=""
NEEDED=""
for app in $APPS; do
    case "$app" in
        mousepad) TARGETS="$TARGETS .build/shims-asan/gtk3/modules/libmenubus.so"
                  NEEDED="$NEEDED $SHIMS/gtk3/modules/libmenubus.so" ;;
        featherpad) TARGETS="$TARGETS qt5-theme"; NEEDED="$NEEDED $SHIMS/qt5/platformthemes/libmenubus.so" ;;
    esac
done
if [ "$BUILD" = 1 ]; then
    echo "building the shims with AddressSanitizer into $SHIMS..." >&2
    # shellcheck disable=SC2086
    job make -C "$TREE" --no-print-directory SHIMS_BUILD=.build/shims-asan SHIM_CFLAGS="$ASAN_FLAGS" \
        SHIM_CXXFLAGS="$ASAN_FLAGS" LDFLAGS=-fsanitize=address $TARGETS \
        >"$TMP/build.log" 2>&1 || { tail -n 30 "$TMP/build.log" >&2; exit 1; }
fi
for file in $NEEDED; do
    [ -f "$file" ] || { echo "run.sh: no $file (run without --no-build)" >&2; exit 1; }
done

# libasan preloaded into an app it is not linked into starts late, inside
# the first malloc, which may come from a library's constructor that holds
# gettext's lock (libgpg-error's bindtextdomain): its start-up looks up
# swift_demangle, and the failed lookup's dlerror takes that lock again,
# so the app hangs in its own bindtextdomain. A swift_demangle of our own
# (answering NULL: nothing demangled) makes the lookup succeed.
printf '%s\n' 'char *swift_demangle(const char *m, unsigned long n, char *o, unsigned long *s, unsigned f)' \
    '{ (void) m; (void) n; (void) o; (void) s; (void) f; return 0; }' > "$TMP/demangle-stub.c"
gcc -shared -fPIC -o "$TMP/libdemangle-stub.so" "$TMP/demangle-stub.c"
PRELOAD="$ASAN_LIB $TMP/libdemangle-stub.so"

FAILED=0
# Each app's time in segments: one life of the app each (a crash ends one;
# the next starts a fresh bus, X server, driver and fake, seeded anew).
MAX_SEGMENTS=40
for app in $APPS; do
    mkdir -p "$OUT/$app"
    left="$SECONDS_PER_APP"
    segment=0
    while [ "$left" -ge 10 ] && [ "$segment" -lt "$MAX_SEGMENTS" ]; do
        dir="$OUT/$app/$segment"
        mkdir -p "$dir"
        # A bus that starts nothing: with the standard session configuration
        # an installed menubusd would be activated while the fake is away
        # (its Register may auto-start) and take the name from it.
        mkdir -p "$TMP/services"
        start_activating_bus run.sh
        began=$(date +%s)
        rc=0
        DBUS_SESSION_BUS_ADDRESS="$ADDR" PYTHONDONTWRITEBYTECODE=1 job xvfb-run -a -s "-screen 0 1024x768x24" \
            /usr/bin/python3 "$ROOT/bench/hostile/hostile.py" "$app" --seconds "$left" --seed "$(( SEED + segment ))" --mode "$MODE" \
            --out "$dir" --gtk-path "$SHIMS/gtk3" --qt-plugin-path "$SHIMS/qt5" --preload "$PRELOAD" \
            >"$dir/summary.txt" 2>"$dir/driver.log" || rc=$?
        stop "$BUS_PID"
        BUS_PID=""
        if [ "$rc" -gt 1 ]; then
            echo "hostile $app: segment $segment did not finish (status $rc); last lines of its log:" >&2
            tail -n 25 "$dir/driver.log" >&2
            FAILED=1
            break
        fi
        left=$(( left - ($(date +%s) - began) ))
        segment=$(( segment + 1 ))
    done
    rc=0
    line="$(/usr/bin/python3 "$ROOT/bench/hostile/hostile.py" "$app" --summarize --out "$OUT/$app")" || rc=$?
    [ "$rc" = 0 ] || FAILED=1
    echo "$line"
    # What failed, briefly: each AddressSanitizer report's head, each crash, hang and mismatch.
    for report in "$OUT/$app"/*/asan/asan.*; do
        [ -s "$report" ] || continue
        echo "--- $report" >&2
        grep -m 1 -E 'ERROR: AddressSanitizer|AddressSanitizer:' "$report" >&2 || true
        grep -E '^ +#[0-9]+ ' "$report" | head -n 16 >&2 || true
    done
    cat "$OUT/$app"/*/driver.log | grep -h 'text mismatch\|crash at step\|hang at step' | head -n 20 >&2 || true
done
if [ "$FAILED" = 1 ]; then
    KEEP=1
fi
printf 'commit %s%s, seed %s, %s\n' "$(git -C "$ROOT" rev-parse --short HEAD)" \
    "${COMMIT:+ (shims of $COMMIT)}" "$SEED" "$(date -u +%Y-%m-%d)"
exit "$FAILED"
