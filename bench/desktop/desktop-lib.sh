# Shell helpers the desktop room's scripts share (real apps under Xvfb with
# menubusd on a private bus); sourced, not run, once ROOT is set. Sources
# bench/lib/lib.sh. The caller sets BUILD and BUS_LIFETIME.
# shellcheck source=../lib/lib.sh
. "$ROOT/bench/lib/lib.sh"

# desktop_start NAME APP...: checks that APP..., xvfb-run, xdotool and
# python3-xlib are there, or exits with NAME's error; makes TMP
# (menubus-NAME.XXXXXX) and sets the cleanup (desktop_cleanup) on exit.
desktop_start() {
    local name="$1" tool
    shift
    for tool in "$@" /usr/bin/xvfb-run /usr/bin/xdotool; do
        [ -x "$tool" ] || { echo "$name: no $tool; run scripts/setup" >&2; exit 1; }
    done
    /usr/bin/python3 -c 'import Xlib' 2>/dev/null || { echo "$name: no python3-xlib; run scripts/setup" >&2; exit 1; }
    TMP="$(mktemp -d "${TMPDIR:-/tmp}/menubus-${name%.sh}.XXXXXX")"
    JOB_PID=""
    BUS_PID=""
    DAEMON_PID=""
    trap desktop_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# desktop_cleanup: stops the measuring job, menubusd (woken first: one left
# stopped by SIGSTOP would not take the TERM) and the bus; removes TMP.
desktop_cleanup() {
    set +e
    [ -n "$DAEMON_PID" ] && kill -CONT "$DAEMON_PID" 2>/dev/null
    stop "$JOB_PID"
    stop "$DAEMON_PID"
    stop "$BUS_PID"
    rm -rf "$TMP"
}

# desktop_build NAME WHAT CMD...: when BUILD is 1, builds the release
# menubusd and menubus-cli, then runs CMD (which builds WHAT), the log in
# TMP; then sets BIN to the release folder, or exits with NAME's error.
desktop_build() {
    local name="$1" what="$2"
    shift 2
    if [ "$BUILD" = 1 ]; then
        echo "building menubusd, menubus-cli (release) and $what..." >&2
        { swift build -c release --product menubusd && swift build -c release --product menubus-cli && "$@"; } \
            >"$TMP/build.log" 2>&1 || { tail -n 30 "$TMP/build.log" >&2; exit 1; }
    fi
    BIN="$(swift build -c release --show-bin-path)"
    [ -x "$BIN/menubusd" ] || { echo "$name: no release menubusd at $BIN" >&2; exit 1; }
}

# desktop_start_menubusd NAME: the private activating bus, the bundled
# providers declared and menubusd on it (start_menubusd_with_bundled_providers);
# then sets LOAD_BEFORE to the load average.
desktop_start_menubusd() {
    start_menubusd_with_bundled_providers "$1"
    LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
}

# desktop_measure SCRIPT ARGS...: runs bench/desktop/SCRIPT with ARGS under
# xvfb-run -a, its output in $TMP/out; when it fails, prints the end of its
# log (and of the logs in $TMP/logs, when there are any) and exits.
desktop_measure() {
    local script="$1"
    shift
    TMPDIR="$TMP" job xvfb-run -a -s "-screen 0 1024x768x24" /usr/bin/python3 "$ROOT/bench/desktop/$script" "$@" \
        >"$TMP/out" 2>"$TMP/helper.log" || {
        tail -n 20 "$TMP/helper.log" >&2
        if [ -d "$TMP/logs" ]; then tail -n 20 "$TMP"/logs/* >&2; fi
        exit 1
    }
}

# package_version PACKAGE: its installed Debian version, or nothing.
package_version() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || true; }

# desktop_header WHAT: the line above the tables: WHAT (the app's and the
# toolkit's versions), the commit (and whether shims/ changed), the date,
# and the load average before (LOAD_BEFORE) and after.
desktop_header() {
    echo "$1," \
        "commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- shims 2>/dev/null || echo ' (shims/ changed)')," \
        "$(date -u '+%Y-%m-%d %H:%M') UTC, load average $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after"
}

# desktop_menubusd_warnings: menubusd's warnings of the run, on stderr.
desktop_menubusd_warnings() {
    if grep -q '^<4>\|^warning' "$TMP/menubusd.log"; then
        echo "menubusd warned:" >&2
        grep '^<4>\|^warning' "$TMP/menubusd.log" >&2
    fi
}
