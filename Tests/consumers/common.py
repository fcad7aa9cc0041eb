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
