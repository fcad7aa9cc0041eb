#!/usr/bin/env bash
# Newcomer timings: on a fresh Debian 12 machine state (a chroot this script
# makes with debootstrap), from `git clone` through the README's two
# commands, `scripts/run --demo-only` to the demo's end and `scripts/test` to
# its summary line. Each COMMIT (default: main, then HEAD) is measured in its
# own fresh copy of the same base, one after the other, so the figures of a
# change and of its baseline come from the same machine and the same run.
#
#   bench/newcomer/newcomer.sh [--runs N] [--keep] [COMMIT...]
#
# Needs root (debootstrap, chroot, mounts), debootstrap and network access
# to deb.debian.org. The base is Debian 12 (bookworm) with git and the
# dependencies swift.org lists for its toolchain, made once under
# $MENUBUS_NEWCOMER_DIR (default /var/tmp/menubus-newcomer) and copied for
# each run. The toolchain itself (/opt/swift, or $MENUBUS_SWIFT) is
# bind-mounted read-only at /opt/swift, as a newcomer who unpacked
# swift.org's tarball there has it; installing it is not timed. The .debs
# scripts/setup installs are downloaded before the first run into one apt
# cache the runs share, so each run times installing them, not the network.
# The clone is made from this repository's git directory, bind-mounted
# read-only; each COMMIT is resolved once, at the start.
# --keep leaves each run's root in place (for a look at what failed).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=${MENUBUS_NEWCOMER_DIR:-/var/tmp/menubus-newcomer}
swift_root=${MENUBUS_SWIFT:-/opt/swift}
runs=1
keep=false
commits=()
while (($#)); do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --keep) keep=true; shift ;;
        -h|--help) sed -n '2,21s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) echo "newcomer: unknown option $1 (try --help)" >&2; exit 2 ;;
        *) commits+=("$1"); shift ;;
    esac
done
((${#commits[@]})) || commits=(main HEAD)
# Resolved now: a branch that moves during an hour of runs is not measured twice over.
for i in "${!commits[@]}"; do
    commits[i]=$(git -C "$repo" rev-parse --verify "${commits[i]}^{commit}") \
        || { echo "newcomer: no commit ${commits[i]}" >&2; exit 2; }
done
[[ $(id -u) -eq 0 ]] || { echo "newcomer: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "newcomer: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
[[ -x $swift_root/usr/bin/swift ]] || { echo "newcomer: no Swift toolchain at $swift_root" >&2; exit 1; }
git_dir=$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir)
mkdir -p "$dir/apt-archives/partial"

# The fresh machine: made once, copied for every run.
base=$dir/base
if [[ ! -e $base/.complete ]]; then
    rm -rf "$base.tmp"
    echo "newcomer: debootstrap bookworm into $base (once)" >&2
    debootstrap --include=git,ca-certificates,sudo,binutils,binutils-gold,libncurses-dev,libc6-dev,libcurl4-openssl-dev,libedit2,libgcc-12-dev,libpython3-dev,libsqlite3-0,libstdc++-12-dev,libxml2-dev,libz3-dev,pkg-config,tzdata,zlib1g-dev,gnupg2,unzip \
        bookworm "$base.tmp" http://deb.debian.org/debian >"$dir/debootstrap.log" 2>&1 \
        || { echo "newcomer: debootstrap failed; see $dir/debootstrap.log" >&2; exit 1; }
    touch "$base.tmp/.complete"
    mv "$base.tmp" "$base"
fi

mounted=()
unmount_all() {
    local m
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m=${mounted[i]}
        umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null || true
    done
    mounted=()
}
trap unmount_all EXIT

# Mounts what a running machine has (proc, sys, dev), the toolchain, the
# shared apt cache and the repository to clone from.
prepare() {
    local root=$1
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # A machine's / is a mount point: unshare --mount (the sandbox tests)
    # makes it private, which fails on a plain directory.
    mount --bind "$root" "$root"; mounted+=("$root")
    mkdir -p "$root/opt/swift" "$root/src/menubus.git"
    mount -t proc proc "$root/proc"; mounted+=("$root/proc")
    mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"; mounted+=("$root/sys")
    mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"; mounted+=("$root/dev")
    mount -t tmpfs tmpfs "$root/tmp"; mounted+=("$root/tmp")
    mount --bind "$swift_root" "$root/opt/swift"; mount -o remount,bind,ro "$root/opt/swift"; mounted+=("$root/opt/swift")
    mount --bind "$dir/apt-archives" "$root/var/cache/apt/archives"; mounted+=("$root/var/cache/apt/archives")
    mount --bind "$git_dir" "$root/src/menubus.git"; mount -o remount,bind,ro "$root/src/menubus.git"; mounted+=("$root/src/menubus.git")
}

# One newcomer: clone, the demo, the tests; prints "demo_s test_s summary".
newcomer() {
    local root=$1 commit=$2
    env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        chroot "$root" /bin/bash -c '
            set -uo pipefail
            cd /root
            start=$(date +%s.%N)
            git -c safe.directory="*" clone -q --no-checkout /src/menubus.git menubus
            git -C menubus checkout -q --detach "$1"
            cd menubus
            timeout 3600 scripts/run --demo-only >/root/run.log 2>&1; run_status=$?
            demo_end=$(date +%s.%N)
            timeout 5400 scripts/test >/root/test.log 2>&1; test_status=$?
            test_end=$(date +%s.%N)
            summary=$(tail -n 1 /root/test.log)
            echo "$start $demo_end $test_end $run_status $test_status $summary"
        ' newcomer "$commit"
}

# The .debs every measured commit's scripts/setup installs, downloaded
# before any clock starts, so no run pays the network and another not.
packages=$(for commit in "${commits[@]}"; do
    git -C "$repo" show "$commit:scripts/setup" | sed -n '/^packages=(/,/^)/p' | sed '1d;$d' | sed 's/#.*//'
done | tr -s ' \n' '\n' | sort -u | tr '\n' ' ')
warm=$dir/warm
rm -rf "$warm"
cp -a "$base" "$warm"
prepare "$warm"
echo "newcomer: downloading what scripts/setup installs into the shared apt cache" >&2
chroot "$warm" /bin/bash -c "apt-get update -qq && apt-get install -qq -y --download-only --no-install-recommends $packages" >"$dir/warm.log" 2>&1 \
    || { echo "newcomer: could not download the packages; see $dir/warm.log" >&2; exit 1; }
unmount_all
rm -rf "$warm"

echo "newcomer: $(nproc) cores, load $(cut -d" " -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)" >&2
results=()
for commit in "${commits[@]}"; do
    hash=$(git -C "$repo" rev-parse --short "$commit")
    for ((run = 1; run <= runs; run++)); do
        root=$dir/run-$hash-$run
        rm -rf "$root"
        echo "newcomer: $hash run $run: copying the base" >&2
        cp -a "$base" "$root"
        prepare "$root"
        read -r start demo_end test_end run_status test_status summary < <(newcomer "$root" "$commit")
        unmount_all
        cp "$root/root/run.log" "$dir/run-$hash-$run.run.log"
        cp "$root/root/test.log" "$dir/run-$hash-$run.test.log"
        $keep || rm -rf "$root"
        demo=$(echo "$demo_end - $start" | bc)
        tests=$(echo "$test_end - $demo_end" | bc)
        total=$(echo "$test_end - $start" | bc)
        results+=("$hash|$run|$demo|$run_status|$tests|$test_status|$total|$summary")
        echo "newcomer: $hash run $run: demo ${demo}s (status $run_status), tests ${tests}s (status $test_status): $summary" >&2
    done
done

echo
echo "Newcomer timings, $(date -u +%Y-%m-%d), $(nproc) cores; logs in $dir"
echo
echo "| commit | run | clone → demo's end (s) | scripts/test (s) | clone → test summary (s) | run / test status | summary |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for row in "${results[@]}"; do
    IFS='|' read -r hash run demo run_status tests test_status total summary <<<"$row"
    printf '| %s | %s | %.0f | %.0f | %.0f | %s / %s | %s |\n' "$hash" "$run" "$demo" "$tests" "$total" "$run_status" "$test_status" "$summary"
done
