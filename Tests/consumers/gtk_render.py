#!/usr/bin/python3
"""A real GTK 3 window that shows a presented menu from org.gtk.Menus with
stock widgets: Gtk.Menu.new_from_model over GLib's GDBusMenuModel, actions
from GDBusActionGroup inserted under the prefix "menubus". Run it under
xvfb-run.

  gtk_render.py OWNER CONTEXT KIND SCREENSHOT [--open SUBMENU] [--click LABEL]
      presents the menu, pops it up over a text view once the model and
      actions have arrived (with --open, also opens that submenu), saves
      the screen to SCREENSHOT with `import -window root` (imagemagick) and
      prints SHOWN with what GTK's menu items show; with --click, then
      activates that GtkMenuItem as a click would and prints ACTIVATED.
"""

import argparse
import subprocess
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")  # with GTK 4 installed too, Gdk would otherwise be 4.0
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402

import gmenu  # noqa: E402
from common import emit, fail, present  # noqa: E402


def item_text(child):
    """The label a GtkModelMenuItem shows (its "text"; get_label() sees only plain children)."""
    try:
        return child.get_property("text") or ""
    except TypeError:
        return child.get_label() or ""


def menu_labels(menu):
    """What the GTK widgets show: labels of the visible GtkMenuItems, "-" for
    separators, with "[x] " before a checked check or radio item."""
    labels = []
    for child in menu.get_children():
        if not child.get_visible():
            continue
        if isinstance(child, Gtk.SeparatorMenuItem):
            labels.append("-")
            continue
        text = item_text(child)
        # GtkModelMenuItem is a GtkCheckMenuItem; active means drawn checked.
        if isinstance(child, Gtk.CheckMenuItem) and child.get_active():
            text = "[x] " + text
        labels.append(text)
    return labels


def find_item(menu, label):
    for child in menu.get_children():
        if child.get_visible() and item_text(child) == label:
            return child
    fail("no GtkMenuItem labelled %r" % label)


def main():
    parser = argparse.ArgumentParser()
    for name in ("owner", "context", "kind", "screenshot"):
        parser.add_argument(name)
    parser.add_argument("--open")
    parser.add_argument("--click")
    options = parser.parse_args()
    owner, context, kind, screenshot = options.owner, options.context, options.kind, options.screenshot
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    path = present(bus, owner, context, kind)
    model, actions = gmenu.connect(bus, path)

    window = Gtk.Window(title="MenuBus edit menu in GTK")
    window.set_default_size(640, 400)
    window.move(0, 0)
    view = Gtk.TextView()
    view.set_left_margin(16)
    view.set_top_margin(16)
    view.get_buffer().set_text("The quick brown fox jumps over the lazy dog.")
    buffer = view.get_buffer()
    buffer.select_range(buffer.get_iter_at_offset(4), buffer.get_iter_at_offset(15))
    window.add(view)
    window.insert_action_group("menubus", actions)
    window.show_all()

    menu = Gtk.Menu.new_from_model(model)
    menu.insert_action_group("menubus", actions)
    menu.attach_to_widget(view, None)
    loop = GLib.MainLoop()
    state = {"phase": "loading", "frames": 0}

    def check():
        if state["phase"] == "loading":
            if gmenu.snapshot(model, actions) is None or not window.get_mapped():
                return True
            state["phase"] = "popping"
            rect = Gdk.Rectangle()
            rect.x, rect.y, rect.width, rect.height = 40, 40, 1, 1
            menu.popup_at_rect(view.get_window(Gtk.TextWindowType.TEXT), rect,
                               Gdk.Gravity.NORTH_WEST, Gdk.Gravity.NORTH_WEST, None)
            return True
        if state["phase"] == "popping":
            if not menu.get_mapped():
                return True
            if options.open:
                item = find_item(menu, options.open)
                menu.select_item(item)
                state["submenu"] = item.get_submenu()
            state["phase"] = "drawing"
            return True
        if state["phase"] == "drawing":
            submenu = state.get("submenu")
            if submenu is not None and not submenu.get_mapped():
                return True
            # A few more frames so every item has drawn its label and state.
            state["frames"] += 1
            if state["frames"] < 10:
                return True
            state["phase"] = "shown"
            subprocess.run(["import", "-window", "root", screenshot], check=True)
            submenu = state.get("submenu")
            emit("SHOWN", {"labels": menu_labels(menu),
                           "submenu": menu_labels(submenu) if submenu is not None else None})
            if options.click:
                find_item(menu, options.click).activate()
                bus.flush_sync(None)
                emit("ACTIVATED", {"label": options.click})
            loop.quit()
        return False

    GLib.timeout_add(50, check)
    GLib.timeout_add_seconds(20, lambda: fail("timed out in phase %s" % state["phase"]))
    loop.run()


if __name__ == "__main__":
    main()
