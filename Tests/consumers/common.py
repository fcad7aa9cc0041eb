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
