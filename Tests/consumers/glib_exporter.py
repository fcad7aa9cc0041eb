#!/usr/bin/python3
"""GLib's own org.gtk.Menus and org.gtk.Actions exporter, as a GTK app uses
it: a Gio.Menu exported with g_dbus_connection_export_menu_model and a
Gio.SimpleActionGroup with g_dbus_connection_export_action_group. The
reference the tests compare MenuBus's change signals with.

  glib_exporter.py NAME PATH MENU_JSON
      owns NAME, exports the menu at PATH and prints READY. MENU_JSON is a
      list of entries: {"label": L, "action": A} (A a plain action name, a
      stateless action of the group; with "state": true or false, a boolean
      stateful one, drawn as a checkmark), {"label": L, "section": [...]},
      {"label": L, "submenu": [...]}. Then reads one JSON command a line
      from stdin and prints DONE N after each:
        {"op": "set", "path": [i, ...], "entry": E}   replace an entry (remove, insert)
        {"op": "insert", "path": [i, ...], "entry": E}
        {"op": "remove", "path": [i, ...]}
      A path's last index is a position; the ones before it go through the
      section or submenu at that position. The same commands also arrive as
      D-Bus calls, Apply(s command) -> (u N) on org.menubus.Bench.Reference
      at /org/menubus/Bench/Reference, for a change told over the bus as an
      app tells menubusd (bench/changes/changes.py).
"""

import json
import sys

from gi.repository import Gio, GLib

from common import emit, fail, serve_commands


def build(entries, actions):
    menu = Gio.Menu()
    for entry in entries:
        menu.append_item(item(entry, actions))
    return menu


def item(entry, actions):
    if "section" in entry:
        return Gio.MenuItem.new_section(entry.get("label"), build(entry["section"], actions))
    if "submenu" in entry:
        return Gio.MenuItem.new_submenu(entry.get("label"), build(entry["submenu"], actions))
    name = entry["action"]
    if actions.lookup_action(name) is None:
        if "state" in entry:
            actions.add_action(Gio.SimpleAction.new_stateful(name, None, GLib.Variant("b", entry["state"])))
        else:
            actions.add_action(Gio.SimpleAction.new(name, None))
    return Gio.MenuItem.new(entry["label"], "menubus." + name)


def main():
    name, path, spec = sys.argv[1:4]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    actions = Gio.SimpleActionGroup()
    root = build(json.loads(spec), actions)
    bus.export_menu_model(path, root)
    bus.export_action_group(path, actions)
    loop = GLib.MainLoop()
    done = {"count": 0}
    # Gives up after 60 s without a command (a benchmark sends many).
    timer = {"id": GLib.timeout_add_seconds(60, lambda: fail("timed out"))}

    def menu_at(indices):
        menu = root
        for index in indices:
            linked = menu.get_item_link(index, "section") or menu.get_item_link(index, "submenu")
            if linked is None:
                fail("no section or submenu at %r" % indices)
            menu = linked
        return menu

    def apply(command):
        GLib.source_remove(timer["id"])
        timer["id"] = GLib.timeout_add_seconds(60, lambda: fail("timed out"))
        menu = menu_at(command["path"][:-1])
        position = command["path"][-1]
        if command["op"] in ("set", "remove"):
            menu.remove(position)
        if command["op"] in ("set", "insert"):
            menu.insert_item(position, item(command["entry"], actions))
        done["count"] += 1
        return done["count"]

    def on_name(connection, owned_name):
        emit("READY")

    serve_commands(bus, loop, apply, flush=True)
    Gio.bus_own_name_on_connection(bus, name, Gio.BusNameOwnerFlags.NONE, on_name, None)
    loop.run()


if __name__ == "__main__":
    main()
