#!/usr/bin/python3
"""Figures of the packaged daemon (issue: deployable).

  bench/load/package.py [--rounds 10] [--daemon /usr/bin/menubusd] [--cli /usr/bin/menubus-cli]

1. Installed size of each binary (bytes on disk).
2. Exec to name owned: from just before exec of the daemon to the bus's
   NameOwnerChanged for org.menubus.MenuBus1, on a private bus; cold (page
   cache dropped before each start, needs root) and warm; median of ROUNDS.
3. Restart to contexts listed again: with 4 apps (3 `menubus-cli publish`,
   the Python example) and a `menubus-cli provider` live, SIGKILL the daemon,
   start it again, and time from exec to name owned and to ListContexts
   listing every context again; median of ROUNDS.

Needs Debian's python3-gi. Starts its own dbus-daemon; stops all it started.
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from gi.repository import Gio, GLib

NAME = "org.menubus.MenuBus1"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start_bus(directory):
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1",
                            f"--address=unix:dir={directory}"], stdout=subprocess.PIPE, text=True)
    return bus, bus.stdout.readline().strip()


def connect(address):
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


class OwnerWatch:
    def __init__(self, connection):
        self.owned_at = None
        self.connection = connection
        connection.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                    "/org/freedesktop/DBus", NAME, Gio.DBusSignalFlags.NONE, self.changed, None)

    def changed(self, connection, sender, path, interface, member, params, data):
        if params.unpack()[2]:
            self.owned_at = time.monotonic()

    def wait(self, timeout=10):
        context = GLib.MainContext.default()
        deadline = time.monotonic() + timeout
        while self.owned_at is None and time.monotonic() < deadline:
            context.iteration(False) or time.sleep(0.0002)
        return self.owned_at


def start_daemon(daemon, address, state, watch):
    watch.owned_at = None
    environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
    started = time.monotonic()
    process = subprocess.Popen([daemon, "--state-dir", state], env=environment, stderr=subprocess.DEVNULL)
    owned = watch.wait()
    if owned is None:
        raise SystemExit("menubusd did not take its name")
    return process, started, owned


def contexts(connection):
    try:
        reply = connection.call_sync(NAME, "/org/menubus/MenuBus1", "org.menubus.MenuBus1", "ListContexts", None,
                                     GLib.VariantType("(a(sss))"), Gio.DBusCallFlags.NO_AUTO_START, 1000, None)
    except GLib.Error:
        return set()
    return {(app, context) for _, app, context in reply.unpack()[0]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--daemon", default="/usr/bin/menubusd")
    parser.add_argument("--cli", default="/usr/bin/menubus-cli")
    args = parser.parse_args()

    print("| binary | installed size |\n| --- | ---: |")
    for binary in (args.daemon, args.cli):
        print(f"| `{binary}` | {os.path.getsize(binary) / 1e6:.1f} MB |")

    children = []
    with tempfile.TemporaryDirectory(prefix="menubus-bench-") as directory:
        bus, address = start_bus(directory)
        try:
            connection = connect(address)
            watch = OwnerWatch(connection)
            state = os.path.join(directory, "state")
            can_drop = os.geteuid() == 0 and os.access("/proc/sys/vm/drop_caches", os.W_OK)
            figures = {"cold": [], "warm": []}
            for kind in ("cold", "warm") if can_drop else ("warm",):
                for _ in range(args.rounds):
                    if kind == "cold":
                        os.sync()
                        with open("/proc/sys/vm/drop_caches", "w") as caches:
                            caches.write("3\n")
                    process, started, owned = start_daemon(args.daemon, address, state, watch)
                    figures[kind].append((owned - started) * 1000)
                    process.send_signal(signal.SIGTERM)
                    process.wait()
            print("\n| exec to name owned | median ms | min ms | max ms |\n| --- | ---: | ---: | ---: |")
            for kind, values in figures.items():
                if values:
                    print(f"| {kind} ({len(values)} starts) | {statistics.median(values):.1f} | {min(values):.1f} | {max(values):.1f} |")
            if not can_drop:
                print("(cold starts need root to drop the page cache; not measured)")

            # Restart with live clients.
            daemon, _, _ = start_daemon(args.daemon, address, state, watch)
            environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
            menu = os.path.join(ROOT, "Tests/MenuBusTests/Fixtures/clean-menu.json")
            expected = set()
            for n in range(3):
                children.append(subprocess.Popen([args.cli, "publish", menu, "--app", f"org.example.Bench{n}", "--context", "c"],
                                                 env=environment, stdout=subprocess.DEVNULL))
                expected.add((f"org.example.Bench{n}", "c"))
            children.append(subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "examples/python/editor.py")],
                                             env=environment, stdout=subprocess.DEVNULL))
            expected.add(("org.example.PyEditor", "body"))
            children.append(subprocess.Popen([args.cli, "provider"], env=environment, stdout=subprocess.DEVNULL))
            deadline = time.monotonic() + 20
            while contexts(connection) != expected and time.monotonic() < deadline:
                time.sleep(0.01)
            to_owned, to_listed = [], []
            for _ in range(args.rounds):
                daemon.send_signal(signal.SIGKILL)
                daemon.wait()
                daemon, started, owned = start_daemon(args.daemon, address, state, watch)
                deadline = time.monotonic() + 10
                while contexts(connection) != expected and time.monotonic() < deadline:
                    time.sleep(0.001)
                listed = time.monotonic()
                if contexts(connection) != expected:
                    raise SystemExit("the clients did not come back within 10 s")
                to_owned.append((owned - started) * 1000)
                to_listed.append((listed - owned) * 1000)
            print(f"\n| after SIGKILL and a new start ({args.rounds} restarts, {len(expected)} apps + 1 provider) | median ms | max ms |\n| --- | ---: | ---: |")
            print(f"| exec to name owned | {statistics.median(to_owned):.1f} | {max(to_owned):.1f} |")
            print(f"| name owned to every context listed again | {statistics.median(to_listed):.1f} | {max(to_listed):.1f} |")
            daemon.send_signal(signal.SIGTERM)
            daemon.wait()
        finally:
            for child in children:
                child.terminate()
                child.wait()
            bus.terminate()
            bus.wait()


if __name__ == "__main__":
    main()
