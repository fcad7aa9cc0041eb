#!/usr/bin/python3
"""Start-up of two menubus-cli binaries, side by side (issue: a package a
distribution would take: `menubus-cli --help` at most 1.5x its time before).

  bench/load/cli-start.py OLD NEW [--rounds 200] [--warmup 20] [-- ARGS...]

Runs `OLD ARGS` and `NEW ARGS` (default ARGS: --help) alternately, ROUNDS
times each, output to /dev/null, and times each from posix_spawn to the
child's exit (os.waitpid), warm page cache. Prints each binary's size on
disk, min / median / p90 in ms, and NEW's median over OLD's. Starts nothing
else and installs nothing.
"""

import argparse
import os
import platform
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def one_run(binary, arguments, devnull):
    start = time.perf_counter_ns()
    pid = os.posix_spawn(binary, [binary] + arguments, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{binary} {' '.join(arguments)} exited {os.waitstatus_to_exitcode(status)}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("arguments", nargs="*", default=["--help"])
    options = parser.parse_args()
    binaries = [os.path.abspath(options.old), os.path.abspath(options.new)]
    samples = {binary: [] for binary in binaries}
    with open(os.devnull, "wb") as null:
        devnull = null.fileno()
        for round_ in range(options.warmup + options.rounds):
            order = binaries if round_ % 2 == 0 else binaries[::-1]
            for binary in order:
                elapsed = one_run(binary, options.arguments, devnull)
                if round_ >= options.warmup:
                    samples[binary].append(elapsed)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, load {load:.2f}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit}")
    print(f"command: {' '.join(['bench/load/cli-start.py', options.old, options.new, '--rounds', str(options.rounds)])}"
          f" -- {' '.join(options.arguments)}")
    print()
    print("| binary | size on disk | samples | min ms | median ms | p90 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    medians = []
    for binary in binaries:
        values = sorted(samples[binary])
        median = statistics.median(values)
        medians.append(median)
        p90 = values[int(len(values) * 0.9) - 1]
        size = os.path.getsize(binary) / 1e6
        print(f"| `{binary}` | {size:.1f} MB | {len(values)} | {values[0]:.2f} | {median:.2f} | {p90:.2f} |")
    print()
    print(f"new / old median: {medians[1] / medians[0]:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
