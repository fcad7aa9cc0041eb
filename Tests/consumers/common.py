"""Shared by the consumer scripts: present a menu as the presenter, print
results as one JSON line per event, and give up after a timeout."""

import json
import sys

from gi.repository import Gio, GLib

BUS_NAME = "org.menubus.MenuBus1"


def present(bus, owner, context, kind):
    """Calls PresentMenu on the same connection the consumer library uses,
    so this process is the presenter allowed to choose from the menu."""
    reply = bus.call_sync(
        BUS_NAME, "/org/menubus/MenuBus1", "org.menubus.MenuBus1", "PresentMenu",
        GLib.Variant("(sssa{sv})", (owner, context, kind, {})),
        GLib.VariantType("(o)"), Gio.DBusCallFlags.NONE, 5000, None)
    return reply.unpack()[0]


COMMANDS_XML = """<node><interface name="org.menubus.Bench.Reference">
  <method name="Apply"><arg type="s" name="command" direction="in"/><arg type="u" name="done" direction="out"/></method>
</interface></node>"""


def serve_commands(bus, loop, apply, flush=False):
    """A reference exporter's commands: one JSON command a line from stdin,
    answered with DONE N on stdout (after flushing `bus` with `flush`), and
    the same commands as D-Bus calls, Apply(s command) -> (u done) at
    /org/menubus/Bench/Reference. `apply` makes the change and returns the
    count of changes; stdin closing quits `loop`."""
    interface = Gio.DBusNodeInfo.new_for_xml(COMMANDS_XML).interfaces[0]

    def on_call(connection, sender, path, interface_name, method, parameters, invocation):
        try:
            command = json.loads(parameters.unpack()[0])
        except ValueError as error:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.InvalidArgs", "command: %s" % error)
            return
        try:
            count = apply(command)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.Failed", "command %r: %r" % (command, error))
            return
        invocation.return_value(GLib.Variant("(u)", (count,)))

    def on_line(channel, condition):
        line = channel.readline()
        if not line:
            loop.quit()
            return False
        count = apply(json.loads(line))
        if flush:
            bus.flush_sync(None)
        emit("DONE", count)
        return True

    bus.register_object("/org/menubus/Bench/Reference", interface, on_call, None, None)
    channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_line)


def emit(tag, value=None):
    """One line on stdout: TAG followed by JSON."""
    sys.stdout.write(tag + (" " + json.dumps(value, sort_keys=True) if value is not None else "") + "\n")
    sys.stdout.flush()


def fail(message):
    emit("ERROR", message)
    sys.exit(1)


class Settled:
    """Reports a changed snapshot once it has held for `polls` polls.

    Consumers apply a change in steps (a new layout, then the items'
    properties; a menu, then its submenus), so the first snapshot that
    differs can be half done.
    """

    def __init__(self, initial, polls=10):
        self.initial = initial
        self.polls = polls
        self.pending = None
        self.held = 0

    def changed(self, snapshot):
        """The snapshot when it differs from the initial one and has settled; else None."""
        if snapshot == self.initial:
            self.pending = None
            return None
        if snapshot != self.pending:
            self.pending = snapshot
            self.held = 0
            return None
        self.held += 1
        return snapshot if self.held >= self.polls else None


def mark(label, checkable, checked):
    """An item as the follow modes print it: "[x] Label" checked, "[ ] Label"
    checkable and unchecked, "Label" otherwise; a submenu's items follow it
    as "Submenu>item"."""
    if not checkable:
        return label
    return ("[x] " if checked else "[ ] ") + label


def follow(snapshot, on_command=None, interval=20, polls=5, timeout=60):
    """Runs the follow mode: polls `snapshot()` (a dict, or None while
    loading) and prints TREE each time it changed and held for `polls`
    polls; reads commands from stdin, one a line: "quit" ends, anything
    else goes to `on_command(line)`."""
    loop = GLib.MainLoop()
    state = {"printed": None, "pending": None, "held": 0}

    def poll():
        current = snapshot()
        if current is None or current == state["printed"]:
            return True
        if current != state["pending"]:
            state["pending"], state["held"] = current, 0
            return True
        state["held"] += 1
        if state["held"] >= polls:
            state["printed"] = current
            emit("TREE", current)
        return True

    def on_input(channel, condition):
        line = channel.readline()
        if not line or line.strip() == "quit":
            loop.quit()
            return False
        if on_command is not None:
            on_command(line.strip())
        return True

    channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_input)
    GLib.timeout_add(interval, poll)
    GLib.timeout_add_seconds(timeout, lambda: fail("timed out"))
    loop.run()
