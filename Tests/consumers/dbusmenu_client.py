#!/usr/bin/python3
"""A real com.canonical.dbusmenu consumer: libdbusmenu-glib's DbusmenuClient
(what waybar, xfce4-panel and Cinnamon use), through python3-gi.

  dbusmenu_client.py OWNER CONTEXT KIND read [LABEL]
      presents the menu, prints TREE with the whole tree as the client
      holds it, then (with LABEL) clicks that item and prints CLICKED once
      the server accepted the event.
  dbusmenu_client.py OWNER CONTEXT KIND watch
      prints TREE, then READY; after the test changes the menu, prints
      CHANGED with the tree the client holds once it has settled.
  dbusmenu_client.py OWNER CONTEXT KIND follow
      prints TREE {"items": [...]} (see common.mark) each time the tree
      the client holds changed and settled; stdin: "click LABEL", "quit".
"""

import sys

import gi

gi.require_version("Dbusmenu", "0.4")
from gi.repository import Dbusmenu, Gio, GLib  # noqa: E402

from common import BUS_NAME, Settled, emit, fail, follow, mark, present  # noqa: E402

PROPERTIES = ["type", "label", "enabled", "visible", "icon-name", "toggle-type", "toggle-state",
              "children-display", "disposition", "shortcut"]


def dump(item):
    node = {"id": item.get_id()}
    for name in PROPERTIES:
        if name in item.properties_list():
            node[name] = item.property_get_variant(name).unpack()
    children = [dump(child) for child in item.get_children()]
    if children:
        node["children"] = children
    return node


def find(item, label):
    if item.property_get("label") == label:
        return item
    for child in item.get_children():
        found = find(child, label)
        if found is not None:
            return found
    return None


def marks(item, prefix=""):
    """The follow mode's strings for the children of `item`."""
    result = []
    for child in item.get_children():
        if child.property_get("type") == "separator":
            result.append(prefix + "-")
            continue
        label = child.property_get("label") or ""
        toggle = child.property_get("toggle-type") or ""
        result.append(prefix + mark(label, toggle != "", child.property_get_int("toggle-state") == 1))
        if child.property_get("children-display") == "submenu":
            result.extend(marks(child, prefix + label + ">"))
    return result


def follow_mode(client):
    def snapshot():
        root = client.get_root()
        return {"items": marks(root)} if root is not None else None

    def on_command(line):
        if line.startswith("click "):
            item = find(client.get_root(), line[len("click "):])
            if item is None:
                fail("no item labelled %r" % line[len("click "):])
            item.handle_event("clicked", GLib.Variant("i", 0), 0)
            emit("CLICKED", {"label": line[len("click "):]})

    follow(snapshot, on_command)


def main():
    owner, context, kind, mode = sys.argv[1:5]
    label = sys.argv[5] if len(sys.argv) > 5 else None
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    path = present(bus, owner, context, kind)
    client = Dbusmenu.Client.new(BUS_NAME, path)
    if mode == "follow":
        return follow_mode(client)
    loop = GLib.MainLoop()
    state = {"phase": "initial", "settled": None}

    def settled_tree():
        root = client.get_root()
        return dump(root) if root is not None and root.get_children() else None

    def on_event_result(client, item, event, data, timestamp, error):
        # `error` is a GError pointer the bindings pass as an integer: 0 is none.
        if error:
            fail("the server refused the event")
        emit("CLICKED", {"id": item.get_id(), "event": event})
        loop.quit()

    def check():
        tree = settled_tree()
        if tree is None:
            return True
        if state["phase"] == "initial":
            state["phase"] = "shown"
            state["settled"] = Settled(tree)
            emit("TREE", tree)
            if mode == "read" and label is not None:
                item = find(client.get_root(), label)
                if item is None:
                    fail("no item labelled %r" % label)
                client.connect("event-result", on_event_result)
                item.handle_event("clicked", GLib.Variant("i", 0), 0)
            elif mode == "read":
                loop.quit()
            else:
                emit("READY")
        elif state["phase"] == "shown" and mode == "watch" and state["settled"].changed(tree) is not None:
            emit("CHANGED", tree)
            loop.quit()
        return True

    # The tree arrives asynchronously (GetLayout, then properties); poll the
    # client's own view, which is what a panel would draw.
    GLib.timeout_add(20, check)
    GLib.timeout_add_seconds(15, lambda: fail("timed out in phase %s" % state["phase"]))
    loop.run()


if __name__ == "__main__":
    main()
