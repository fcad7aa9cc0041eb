#!/usr/bin/python3
"""Reads one presented menu through both real consumers: libdbusmenu-glib's
DbusmenuClient and GLib's GDBusMenuModel, as panels and GTK apps do.

  l10n_client.py OWNER CONTEXT KIND
      presents the menu once and prints RESULT with the labels each consumer
      holds (in menu order, separators left out) and the dbusmenu client's
      text direction ("ltr" or "rtl").
"""

import sys

import gi

gi.require_version("Dbusmenu", "0.4")
from gi.repository import Dbusmenu, Gio, GLib  # noqa: E402

import gmenu  # noqa: E402
from common import BUS_NAME, Settled, emit, fail, present  # noqa: E402


def dbusmenu_labels(item):
    labels = []
    for child in item.get_children():
        if child.property_get("type") != "separator" and child.property_get("label") is not None:
            labels.append(child.property_get("label"))
        labels += dbusmenu_labels(child)
    return labels


def gmenu_labels(items):
    labels = []
    for item in items:
        if "label" in item:
            labels.append(item["label"])
        for link in ("section", "submenu"):
            labels += gmenu_labels(item.get(link, []))
    return labels


def main():
    owner, context, kind = sys.argv[1:4]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    path = present(bus, owner, context, kind)
    client = Dbusmenu.Client.new(BUS_NAME, path)
    model, actions = gmenu.connect(bus, path)
    loop = GLib.MainLoop()
    state = {"settled": None}

    def check():
        root = client.get_root()
        tree = gmenu.snapshot(model, actions)
        if root is None or not root.get_children() or tree is None:
            return True
        snapshot = (dbusmenu_labels(root), gmenu_labels(tree), client.get_text_direction())
        if state["settled"] is None:
            state["settled"] = Settled(None, polls=5)
        if state["settled"].changed(snapshot) is None:
            return True
        direction = "rtl" if snapshot[2] == Dbusmenu.TextDirection.RTL else "ltr"
        emit("RESULT", {"dbusmenu": snapshot[0], "gmenu": snapshot[1], "direction": direction})
        loop.quit()
        return False

    GLib.timeout_add(20, check)
    GLib.timeout_add_seconds(15, lambda: fail("timed out"))
    loop.run()


if __name__ == "__main__":
    main()
