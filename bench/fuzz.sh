#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS seconds (Fuzz/README.md).
#
#   bench/fuzz.sh TARGET SECONDS [--no-build] [-- LIBFUZZER_FLAGS...]
#   TARGET: reader cursor elements context selection options keyfile undo json
#
# Builds menubus-fuzz with libFuzzer and AddressSanitizer into .build/fuzz
# (the normal build is untouched), copies the committed seeds of TARGET
# into a scratch corpus (.build/fuzz/corpus/TARGET, kept between runs,
# never committed), runs, and prints the last status line (exec/s, cov:).
# A crash leaves its input as .build/fuzz/findings/TARGET/crash-*: fix it,
# then commit the input into Fuzz/findings/TARGET/, where MenuBusFuzzTests
# replays it on every `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
[[ ${1:-} == --help || ${1:-} == -h ]] && usage
[[ $# -ge 2 ]] || usage 2
target=$1 seconds=$2
shift 2
build=1
if [[ ${1:-} == --no-build ]]; then build=0; shift; fi
[[ ${1:-} == -- ]] && shift
[[ -d Fuzz/corpus/$target ]] || { echo "fuzz.sh: no target '$target' (no Fuzz/corpus/$target)" >&2; exit 2; }

scratch=.build/fuzz
if [[ $build == 1 ]]; then
    swift build -c debug --product menubus-fuzz --scratch-path "$scratch" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >&2
fi
binary=$scratch/debug/menubus-fuzz
corpus=$scratch/corpus/$target findings=$scratch/findings/$target
mkdir -p "$corpus" "$findings"
cp -n Fuzz/corpus/"$target"/* "$corpus"/
[[ -d Fuzz/findings/$target ]] && cp -n Fuzz/findings/"$target"/* "$corpus"/ 2>/dev/null || true

log=$scratch/$target.log
echo "fuzzing $target for ${seconds}s ($(nproc) cores; log $log)" >&2
status=0
# SWIFT_BACKTRACE=enable=no: a trap then reads as itself, not as an ASan
# report from the Swift backtracer reading the crashed thread's stack.
MENUBUS_FUZZ_TARGET=$target ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" SWIFT_BACKTRACE=enable=no "$binary" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$@" "$corpus" >"$log" 2>&1 || status=$?
grep -E "^#[0-9]+" "$log" | tail -n 1
grep -E "stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" || true
if [[ $status -ne 0 ]]; then
    echo "fuzz.sh: $target found something (exit $status): $(ls "$findings" | tail -n 1); see $log" >&2
fi
exit "$status"
