#!/usr/bin/python3
"""Reads and listens to a menu menubusd presented, as an app in a sandbox
would try to: every read of the menu's object in every protocol, and every
signal menubusd sends, heard through a match rule on its name alone.

    menu_reader.py MENU_PATH SYNC_FILE

Prints `CALL <interface>.<member> <error name or ok>` for each read, then
`READY`; then `SIGNAL <path> <interface>.<member> <arguments>` for every
signal heard from menubusd. Once SYNC_FILE exists it pings menubusd (what
menubusd sent before the answer has been heard by then), prints `SYNCED`
and exits."""
import os
import sys

from gi.repository import Gio, GLib

BUS_NAME = "org.menubus.MenuBus1"

READS = [
    ("org.menubus.MenuBus1.Menu", "GetLayout", None),
    ("com.canonical.dbusmenu", "GetLayout", GLib.Variant("(iias)", (0, -1, []))),
    ("com.canonical.dbusmenu", "GetGroupProperties", GLib.Variant("(aias)", ([0], []))),
    ("com.canonical.dbusmenu", "GetProperty", GLib.Variant("(is)", (0, "children-display"))),
    ("com.canonical.dbusmenu", "AboutToShow", GLib.Variant("(i)", (0,))),
    ("org.gtk.Menus", "Start", GLib.Variant("(au)", ([0],))),
    ("org.gtk.Actions", "DescribeAll", None),
    ("org.gtk.Actions", "List", None),
    ("org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", ("org.menubus.MenuBus1.Menu",))),
    ("org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", ("org.menubus.MenuBus1.Menu", "Title"))),
    ("org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", ("com.canonical.dbusmenu",))),
]


def main():
    path, sync_file = sys.argv[1], sys.argv[2]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    loop = GLib.MainLoop()

    def heard(connection, sender, object_path, interface, member, parameters):
        print("SIGNAL %s %s.%s %s" % (object_path, interface, member, parameters.print_(False)), flush=True)

    bus.signal_subscribe(BUS_NAME, None, None, None, None, Gio.DBusSignalFlags.NONE, heard)
    for interface, member, arguments in READS:
        try:
            bus.call_sync(BUS_NAME, path, interface, member, arguments, None, Gio.DBusCallFlags.NONE, 5000, None)
            print("CALL %s.%s ok" % (interface, member), flush=True)
        except GLib.Error as error:
            print("CALL %s.%s %s" % (interface, member, Gio.DBusError.get_remote_error(error) or error.message),
                  flush=True)
    print("READY", flush=True)

    def check():
        if not os.path.exists(sync_file):
            return True
        bus.call_sync(BUS_NAME, "/org/menubus/MenuBus1", "org.freedesktop.DBus.Peer", "Ping", None, None,
                      Gio.DBusCallFlags.NONE, 5000, None)
        # Signals sent before the answer were queued before it: let them in.
        context = loop.get_context()
        while context.iteration(False):
            pass
        print("SYNCED", flush=True)
        loop.quit()
        return False

    GLib.timeout_add(20, check)
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
