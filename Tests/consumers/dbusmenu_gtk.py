#!/usr/bin/python3
"""The menu a tray host pops up: libdbusmenu-gtk3's DbusmenuGtkMenu, a real
GtkMenu filled from com.canonical.dbusmenu, followed as it changes. Needs
an X display (the tests start Xvfb).

  dbusmenu_gtk.py OWNER CONTEXT KIND
      presents the menu, pops it up once it has items and prints TREE each
      time what the widgets show changed and settled: {"items": [...]
      (common.mark; a check or radio shows only when on), "open": mapped}.
      stdin: "click LABEL" activates that item as a click does; "quit".
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")  # with both GTKs installed, Gdk must match
gi.require_version("DbusmenuGtk3", "0.4")
from gi.repository import DbusmenuGtk3, Gdk, Gio, Gtk  # noqa: E402

from common import BUS_NAME, emit, fail, follow, mark, present  # noqa: E402


def text(item):
    """The label without its mnemonic marker ("__" is a shown underscore)."""
    return (item.get_label() or "").replace("__", "\0").replace("_", "").replace("\0", "_")


def marks(menu, prefix=""):
    result = []
    for child in menu.get_children():
        if not child.get_visible():
            continue
        if isinstance(child, Gtk.SeparatorMenuItem):
            result.append(prefix + "-")
            continue
        checked = isinstance(child, Gtk.CheckMenuItem) and child.get_active()
        result.append(prefix + mark(text(child), checked, checked))
        if child.get_submenu() is not None:
            result.extend(marks(child.get_submenu(), prefix + text(child) + ">"))
    return result


def find(menu, label):
    for child in menu.get_children():
        if text(child) == label:
            return child
        if child.get_submenu() is not None:
            found = find(child.get_submenu(), label)
            if found is not None:
                return found
    return None


def main():
    owner, context, kind = sys.argv[1:4]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    path = present(bus, owner, context, kind)
    window = Gtk.Window(title="A tray host's menu")
    window.set_default_size(640, 400)
    window.show_all()
    menu = DbusmenuGtk3.Menu.new(BUS_NAME, path)
    menu.attach_to_widget(window, None)
    state = {"shown": False, "loaded": False}

    def snapshot():
        items = marks(menu)
        if not items and not state["loaded"]:
            return None
        state["loaded"] = True
        if not state["shown"]:
            if not window.get_mapped():
                return None
            state["shown"] = True
            rect = Gdk.Rectangle()
            rect.x, rect.y, rect.width, rect.height = 40, 40, 1, 1
            menu.popup_at_rect(window.get_window(), rect, Gdk.Gravity.NORTH_WEST, Gdk.Gravity.NORTH_WEST, None)
            return None
        return {"items": items, "open": menu.get_mapped()}

    def on_command(line):
        if line.startswith("click "):
            item = find(menu, line[len("click "):])
            if item is None:
                fail("no item labelled %r" % line[len("click "):])
            item.activate()
            bus.flush_sync(None)
            emit("CLICKED", {"label": line[len("click "):]})

    follow(snapshot, on_command)


if __name__ == "__main__":
    main()
