#!/usr/bin/python3
"""MenuBus's menu shown in mousepad by `menubus-cli show-menu`, against the
app's own Shift+F10 menu and the bus's GetId round trip, in one run.

Run by bench/desktop/show-menu.sh under xvfb-run, on a private session bus
where menubusd runs with the bundled providers declared. One mousepad with
the GTK 3 module (GTK_MODULES=menubus) gets a sentence typed and its last
word selected. Then SAMPLES rounds (after one unmeasured), each after a
selection change (Shift+Left and Shift+Right in turn) and a pause, time
from the ask to the popup menu's window mapped on the X server (an
input-output override-redirect window, as bench/desktop/gtk-menu.py
watches it; Escape closes it and its unmap is awaited), in an order that
rotates each round:
    key       Shift+F10 through XTest (the app's own menu, with MenuBus's items);
    cli       `menubus-cli show-menu` started (its start-up, connection and
              ShowMenuForFocus, menubusd's ShowEditMenu to the app);
    call      ShowMenuForFocus sent from this process's GDBus connection,
              already open (no start-up);
    client    with --client, show-menu-client started: a C program on
              libdbus making the same call (the least a command can do);
then, with no menu open:
    getid     org.freedesktop.DBus.GetId on the same bus from this process;
    start     `menubus-cli show-menu --help` started to its exit (the CLI's
              start-up with no bus, for where show-menu's time goes);
    spawn     /bin/true started to its exit (the spawn itself).
Every program is started with posix_spawn, as GLib's g_spawn starts a
desktop shortcut's command.

Prints lines `NAME value...` (milliseconds; `height-NAME` in pixels):
key / cli / call / client / getid / start / spawn; cli-answered /
call-answered / client-answered (from the ask to the program's exit or to
ShowMenuForFocus's reply, which menubusd sends once the app answered
ShowEditMenu); `module-loaded yes|no`; and with --monitor-log, each
ShowMenuForFocus of the run split as the bus monitor saw it:
monitor-menubusd-in (the call to menubusd's ShowEditMenu call),
monitor-app (ShowEditMenu to the app's reply), monitor-menubusd-out (the
app's reply to menubusd's answer).
The X side (XTest, MapNotify, the mousepad) is bench/desktop/gtk-menu.py's,
loaded from it.
"""

import argparse
import importlib.util
import os
import sys
import tempfile
import threading
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

_spec = importlib.util.spec_from_file_location("gtk_menu", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gtk-menu.py"))
gtk_menu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gtk_menu)
Failure = gtk_menu.Failure

MENUBUS = ("org.menubus.MenuBus1", "/org/menubus/MenuBus1", "org.menubus.MenuBus1")


def log(*parts):
    print("show-menu:", *parts, file=sys.stderr, flush=True)


class Bus:
    """This process's own connection to the session bus, open before
    anything is timed: GetId and ShowMenuForFocus."""

    def __init__(self):
        self.connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    def get_id(self):
        started = time.monotonic()
        self.connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                                  None, GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 2000, None)
        return (time.monotonic() - started) * 1000.0

    def show_menu_for_focus(self, timeout_ms=10000):
        """Answers (appId, contextId) or raises GLib.Error."""
        return self.connection.call_sync(*MENUBUS, "ShowMenuForFocus", GLib.Variant("(a{sv})", ({},)),
                                         GLib.VariantType("(ss)"), Gio.DBusCallFlags.NONE, timeout_ms, None).unpack()


def answered_in_thread(work):
    """Runs `work` in a thread, which notes (seconds when it returned, its
    result or the GLib.Error it raised) in its `answer`."""
    def run():
        try:
            result = work()
        except GLib.Error as error:
            result = error
        thread.answer = (time.monotonic(), result)
    thread = threading.Thread(target=run, daemon=True)
    thread.answer = None
    thread.start()
    return thread


def timed_menu(screen, started, thread, what, timeout=5):
    """Waits for the popup that the ask in `thread` (sent at `started`)
    maps, closes it and waits for the thread. Returns the milliseconds to
    the map, the popup's height, and the thread's answer and its time in
    milliseconds (the map and its answer may come in either order)."""
    event, mapped = screen.wait_event(lambda e: e.type == gtk_menu.X.MapNotify and e.override and screen.drawn(e.window),
                                      timeout)
    thread.join(timeout=15)
    answer = thread.answer
    if event is None:
        raise Failure("no popup window was mapped within %s s of %s (answer: %s)" % (timeout, what, answer and answer[1]))
    height = screen.height(event.window)
    screen.close_menu(event.window)
    if answer is None:
        raise Failure("%s did not end within 15 s" % what)
    return (mapped - started) * 1000.0, height, answer[1], (answer[0] - started) * 1000.0


def by_key(screen, _bus, _programs):
    milliseconds, window = screen.open_menu()
    height = screen.height(window)
    screen.close_menu(window)
    return milliseconds, height, None


def spawned(argv, output):
    """Starts argv as a desktop's shortcut daemon would (posix_spawn, as
    GLib's g_spawn does), its output to the file `output`; returns a
    function waiting for its exit status."""
    fd = output.fileno()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)])
    return lambda: os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def by_program(screen, argv):
    """argv started to the popup mapped; its exit status must be 0."""
    with tempfile.TemporaryFile("w+") as output:
        screen.drain()
        started = time.monotonic()
        thread = answered_in_thread(spawned(argv, output))
        milliseconds, height, status, answered = timed_menu(screen, started, thread, " ".join(argv))
        if status != 0:
            output.seek(0)
            raise Failure("%s exited %s: %s" % (" ".join(argv), status, output.read()))
    return milliseconds, height, answered


def by_call(screen, bus, _programs):
    screen.drain()
    started = time.monotonic()
    thread = answered_in_thread(bus.show_menu_for_focus)
    milliseconds, height, result, answered = timed_menu(screen, started, thread, "ShowMenuForFocus")
    if isinstance(result, GLib.Error):
        raise Failure("ShowMenuForFocus failed: %s" % result.message)
    return milliseconds, height, answered


WAYS = (("key", by_key),
        ("cli", lambda screen, _bus, programs: by_program(screen, [programs["cli"], "show-menu"])),
        ("call", by_call),
        ("client", lambda screen, _bus, programs: by_program(screen, [programs["client"]])))


def started_to_exit(argv):
    """Milliseconds from posix_spawn of argv to its exit (no bus, no menu)."""
    with tempfile.TemporaryFile("w+") as output:
        started = time.monotonic()
        status = spawned(argv, output)()
        if status != 0:
            output.seek(0)
            raise Failure("%s exited %s: %s" % (" ".join(argv), status, output.read()))
    return (time.monotonic() - started) * 1000.0


def until_focus_known(screen, bus, timeout=10):
    """Asks ShowMenuForFocus until menubusd knows the field has the focus
    (the focus reaches it with the field's next update), closing each menu."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            by_call(screen, bus, {})
            return
        except Failure as error:
            if time.monotonic() > deadline:
                raise Failure("ShowMenuForFocus never showed mousepad's menu: %s" % error)
            time.sleep(0.1)


def measure(screen, bus, programs, samples, settle):
    ways = [(name, way) for name, way in WAYS if name in ("key", "call") or name in programs]
    values = {name: [] for name in ("getid", "start", "spawn")}
    heights = {}
    for name, _ in ways:
        values[name], heights[name] = [], []
        if name != "key":
            values[name + "-answered"] = []
    for round_index in range(samples + 1):
        turn = round_index % len(ways)
        for step, (name, way) in enumerate(ways[turn:] + ways[:turn]):
            screen.press("Shift_L", "Left" if (round_index * len(ways) + step) % 2 == 0 else "Right")
            time.sleep(settle)
            milliseconds, height, answered = way(screen, bus, programs)
            if round_index == 0:
                continue
            values[name].append(milliseconds)
            heights[name].append(height)
            if answered is not None:
                values[name + "-answered"].append(answered)
        if round_index == 0:
            continue
        values["getid"].append(bus.get_id())
        values["start"].append(started_to_exit([programs["cli"], "show-menu", "--help"]))
        values["spawn"].append(started_to_exit(["/bin/true"]))
    return values, heights


def monitor_spans(path):
    """From a `dbus-monitor --profile` log of the run, for each
    ShowMenuForFocus answered: its call to menubusd's ShowEditMenu call
    (menubusd), that call to the app's reply (the app), the app's reply to
    menubusd's answer (menubusd), in ms as the monitor saw them."""
    calls, replies = [], {}
    with open(path) as log_file:
        for line in log_file:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "mc" and len(fields) >= 8:
                # mc time serial sender destination path interface member
                calls.append((float(fields[1]), fields[3], fields[2], fields[7]))
            elif fields[0] in ("mr", "err") and len(fields) >= 6:
                # mr time serial sender destination reply_serial
                replies[(fields[4], fields[5])] = float(fields[1])
    spans = {"monitor-menubusd-in": [], "monitor-app": [], "monitor-menubusd-out": []}
    shows = [(at, replies.get((sender, serial))) for at, sender, serial, member in calls if member == "ShowEditMenu"]
    for at, sender, serial, member in calls:
        answered = replies.get((sender, serial))
        if member != "ShowMenuForFocus" or answered is None:
            continue
        show = next(((called, reply) for called, reply in shows if at <= called and reply is not None and reply <= answered),
                    None)
        if show is None:
            continue
        spans["monitor-menubusd-in"].append((show[0] - at) * 1000.0)
        spans["monitor-app"].append((show[1] - show[0]) * 1000.0)
        spans["monitor-menubusd-out"].append((answered - show[1]) * 1000.0)
    return spans


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--gtk-path", required=True, help="GTK_PATH holding modules/libmenubus.so")
    parser.add_argument("--cli", required=True, help="the menubus-cli to run")
    parser.add_argument("--client", help="show-menu-client (bench/desktop/show-menu-client.c, built)")
    parser.add_argument("--settle", type=float, default=0.15,
                        help="seconds after each selection change, outside the timed span")
    parser.add_argument("--monitor-log", help="a dbus-monitor --profile log of this run to split ShowMenuForFocus by")
    options = parser.parse_args()

    screen = gtk_menu.Screen()
    bus = Bus()
    app = None
    try:
        app = gtk_menu.Mousepad(True, options.gtk_path, "with")
        app.focus(options.settle)
        app.type_and_select()
        print("module-loaded %s" % ("yes" if app.has_module() else "no"), flush=True)
        time.sleep(options.settle)
        until_focus_known(screen, bus)
        programs = {"cli": options.cli}
        if options.client:
            programs["client"] = options.client
        values, heights = measure(screen, bus, programs, options.samples, options.settle)
        for name, numbers in values.items():
            print("%s %s" % (name, " ".join("%.3f" % v for v in numbers)), flush=True)
        for name, numbers in heights.items():
            print("height-%s %s" % (name, " ".join(str(v) for v in numbers)), flush=True)
        if options.monitor_log:
            time.sleep(0.2)
            for name, numbers in monitor_spans(options.monitor_log).items():
                print("%s %s" % (name, " ".join("%.3f" % v for v in numbers)), flush=True)
    except Failure as error:
        log(error)
        return 1
    finally:
        if app is not None:
            app.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
