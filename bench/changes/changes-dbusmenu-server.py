#!/usr/bin/python3
"""libdbusmenu-glib's own com.canonical.dbusmenu server (DbusmenuServer),
as a libdbusmenu app uses it: the reference bench/changes/changes.py compares
menubusd's dbusmenu change signals with.

  changes-dbusmenu-server.py NAME PATH MENU_JSON
      owns NAME, serves the menu at PATH and prints READY. MENU_JSON is a
      list of entries: {"label": L}, {"separator": true},
      {"label": L, "submenu": [...]}. Then reads one JSON command a line
      from stdin and prints DONE N after each:
        {"op": "label", "path": [i, ...], "label": L}   set an item's label
        {"op": "insert", "path": [i, ...], "entry": E}
        {"op": "remove", "path": [i, ...]}
      A path's last index is a position among a parent's children; the
      ones before it go through the submenus at those positions. The same
      commands also arrive over the bus, as Apply(s) on
      org.menubus.Bench.Reference (Tests/consumers/common.py).
"""

import json
import os
import sys

import gi

gi.require_version("Dbusmenu", "0.4")
from gi.repository import Dbusmenu, Gio, GLib  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "consumers"))
from common import emit, serve_commands  # noqa: E402


def item(entry):
    node = Dbusmenu.Menuitem.new()
    if entry.get("separator"):
        node.property_set("type", "separator")
        return node
    node.property_set("label", entry["label"])
    if "submenu" in entry:
        node.property_set("children-display", "submenu")
        for child in entry["submenu"]:
            node.child_append(item(child))
    return node


def main():
    name, path, spec = sys.argv[1:4]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    root = Dbusmenu.Menuitem.new()
    for entry in json.loads(spec):
        root.child_append(item(entry))
    server = Dbusmenu.Server.new(path)
    server.set_root(root)
    loop = GLib.MainLoop()
    done = {"count": 0}

    def parent_at(indices):
        node = root
        for index in indices:
            node = node.get_children()[index]
        return node

    def apply(command):
        parent = parent_at(command["path"][:-1])
        position = command["path"][-1]
        if command["op"] == "label":
            parent.get_children()[position].property_set("label", command["label"])
        elif command["op"] == "remove":
            parent.child_delete(parent.get_children()[position])
        elif command["op"] == "insert":
            parent.child_add_position(item(command["entry"]), position)
        done["count"] += 1
        return done["count"]

    def on_name(connection, owned_name):
        emit("READY")

    serve_commands(bus, loop, apply)
    Gio.bus_own_name_on_connection(bus, name, Gio.BusNameOwnerFlags.NONE, on_name, None)
    GLib.timeout_add_seconds(600, loop.quit)
    loop.run()
    del server


if __name__ == "__main__":
    main()
