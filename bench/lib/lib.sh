# Shell helpers the benchmark scripts share; sourced, not run.
# The caller sets TMP (a temp dir), BUS_LIFETIME (seconds) and JOB_PID="".

# stop PID: TERM, wait up to 2 s, then KILL.
stop() {
    local pid="$1" i
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# job CMD...: runs a long command in the background and waits for it, so
# that INT/TERM reach the caller's traps at once instead of after it ends.
job() {
    "$@" &
    JOB_PID=$!
    local rc=0
    wait "$JOB_PID" || rc=$?
    JOB_PID=""
    return "$rc"
}

# start_private_bus NAME: a dbus-daemon that dies after BUS_LIFETIME
# seconds at the latest; sets BUS_PID and ADDR, or exits with NAME's error.
start_private_bus() {
    timeout "$BUS_LIFETIME" dbus-daemon --session --nofork --print-address=1 \
        >"$TMP/bus.address" 2>"$TMP/bus.log" &
    BUS_PID=$!
    wait_for_bus "$1"
}

# start_activating_bus NAME: the same, with a configuration whose service
# directory is $TMP/services, so the bus starts the services described
# there (D-Bus activation).
start_activating_bus() {
    cat > "$TMP/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$TMP</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$TMP/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
    timeout "$BUS_LIFETIME" dbus-daemon --config-file="$TMP/bus.conf" --nofork --print-address=1 \
        >"$TMP/bus.address" 2>"$TMP/bus.log" &
    BUS_PID=$!
    wait_for_bus "$1"
}

# wait_for_bus NAME: sets ADDR once the bus BUS_PID printed it.
wait_for_bus() {
    ADDR=""
    for _ in $(seq 1 100); do
        ADDR="$(head -n 1 "$TMP/bus.address" 2>/dev/null || true)"
        [ -n "$ADDR" ] && break
        kill -0 "$BUS_PID" 2>/dev/null || break
        sleep 0.05
    done
    if [ -z "$ADDR" ]; then
        echo "$1: the private dbus-daemon did not start" >&2
        exit 1
    fi
}

# has_owner NAME: true when NAME is owned on the bus at ADDR.
has_owner() {
    timeout 5 dbus-send --bus="$ADDR" --print-reply=literal --reply-timeout=2000 \
        --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q true
}

# stop_everything: the cleanup of a script that sets JOB_PID, MENUBUSD_PID
# and BUS_PID: stops them and removes TMP (for `trap stop_everything EXIT`).
stop_everything() {
    set +e
    stop "$JOB_PID"
    stop "${MENUBUSD_PID:-}"
    stop "${BUS_PID:-}"
    rm -rf "$TMP"
}

# release_menubusd NAME: builds the release menubusd under SCRATCH when
# BUILD is 1 (log in TMP), then sets MENUBUSD to it, or exits with NAME's error.
release_menubusd() {
    if [ "$BUILD" = 1 ]; then
        echo "building menubusd (swift build -c release --product menubusd --scratch-path $SCRATCH)..." >&2
        job timeout 900 swift build -c release --product menubusd --scratch-path "$SCRATCH" >"$TMP/build.log" 2>&1 \
            || { tail -n 30 "$TMP/build.log" >&2; exit 1; }
    fi
    MENUBUSD="$SCRATCH/release/menubusd"
    [ -x "$MENUBUSD" ] || { echo "$1: no release menubusd at $MENUBUSD" >&2; exit 1; }
}

# link_provider: $TMP/menubus-provider, a link to $BIN/menubus-cli, which
# serves the bundled providers under that name (as make install links it).
link_provider() {
    ln -sfn "$BIN/menubus-cli" "$TMP/menubus-provider"
}

# start_menubusd_with_bundled_providers NAME: the bundled providers declared
# in $TMP/data (their key files from data/providers) and started by D-Bus
# activation from $BIN/menubus-cli as menubus-provider (link_provider), on an activating bus (see
# start_activating_bus), and $BIN/menubusd on it; exports
# DBUS_SESSION_BUS_ADDRESS and XDG_STATE_HOME, sets DAEMON_PID, or exits
# with NAME's error.
start_menubusd_with_bundled_providers() {
    local NAME_FOR_ERRORS="$1"
    mkdir -p "$TMP/services" "$TMP/data/menubus/providers" "$TMP/config" "$TMP/state" "$TMP/system"
    cp "$ROOT"/data/providers/*.provider "$TMP/data/menubus/providers/"
    local provider_env="XDG_DATA_HOME=$TMP/data XDG_DATA_DIRS=$TMP/system XDG_CONFIG_HOME=$TMP/config LANG=C.UTF-8"
    local service
    link_provider
    for service in "org.menubus.TextTransforms text" "org.menubus.SearchWeb search-web" "org.menubus.Translate translate"; do
        set -- $service
        printf '[D-BUS Service]\nName=%s\nExec=/usr/bin/env PATH=/usr/bin:/bin %s %s %s\n' \
            "$1" "$provider_env" "$TMP/menubus-provider" "$2" > "$TMP/services/$1.service"
    done
    start_activating_bus "$NAME_FOR_ERRORS"
    export DBUS_SESSION_BUS_ADDRESS="$ADDR" XDG_STATE_HOME="$TMP/state"
    XDG_DATA_HOME="$TMP/data" XDG_DATA_DIRS="$TMP/system" XDG_CONFIG_HOME="$TMP/config" LANG=C.UTF-8 LANGUAGE=C \
        "$BIN/menubusd" --provider-start-timeout 10 2>"$TMP/menubusd.log" &
    DAEMON_PID=$!
    wait_for_menubusd "$NAME_FOR_ERRORS" "$TMP/menubusd.log"
}

# wait_for_menubusd NAME LOG: waits up to 5 s for menubusd's bus name, or
# prints LOG and exits with NAME's error.
wait_for_menubusd() {
    for _ in $(seq 1 100); do has_owner org.menubus.MenuBus1 && return 0; sleep 0.05; done
    echo "$1: menubusd did not take its name" >&2
    cat "$2" >&2
    exit 1
}

# median: the median of the numbers on stdin (spaces or lines).
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# values NAME: the numbers of the line "NAME ..." in $TMP/out.
values() { grep "^$1 " "$TMP/out" | cut -d' ' -f2-; }
