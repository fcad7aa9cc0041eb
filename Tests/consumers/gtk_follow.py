#!/usr/bin/python3
"""A presented menu open in a real GTK window, followed as it changes:
GTK 3's Gtk.Menu.new_from_model or GTK 4's Gtk.PopoverMenu.new_from_model
over GLib's GDBusMenuModel, actions from GDBusActionGroup under the prefix
"menubus". Needs an X display (the tests start Xvfb).

  gtk_follow.py --gtk 3|4 (--present OWNER CONTEXT KIND | --reference NAME PATH)
                [--open SUBMENU]
      pops the menu up once it has loaded (with --open, also opens that
      submenu: GTK 3 selects its item, GTK 4 turns to its page) and prints
      TREE each time what the widgets show changed and settled:
      {"items": [...] (common.mark), "open": the menu is mapped,
       "submenu": the open submenu's label or null}.
      --reference follows a menu GLib's own exporter serves instead.
      stdin: "click LABEL" activates that item as a click does; "quit".
"""

import argparse

import gi

options = argparse.ArgumentParser()
options.add_argument("--gtk", choices=["3", "4"], required=True)
options.add_argument("--present", nargs=3)
options.add_argument("--reference", nargs=2)
options.add_argument("--open")
options = options.parse_args()

version = options.gtk + ".0"
gi.require_version("Gtk", version)
gi.require_version("Gdk", version)  # with both GTKs installed, Gdk must match
from gi.repository import Gdk, Gio, Gtk  # noqa: E402

import gmenu  # noqa: E402
from common import emit, fail, follow, mark, present  # noqa: E402


def gtk3_text(child):
    try:
        return child.get_property("text") or ""
    except TypeError:
        return child.get_label() or ""


def gtk3_marks(menu, prefix=""):
    result = []
    for child in menu.get_children():
        if not child.get_visible():
            continue
        if isinstance(child, Gtk.SeparatorMenuItem):
            result.append(prefix + "-")
            continue
        text = gtk3_text(child)
        # A GtkModelMenuItem is a GtkCheckMenuItem, active when drawn checked.
        checked = isinstance(child, Gtk.CheckMenuItem) and child.get_active()
        result.append(prefix + mark(text, checked, checked))
        if child.get_submenu() is not None:
            result.extend(gtk3_marks(child.get_submenu(), prefix + text + ">"))
    return result


def gtk3_find(menu, label):
    for child in menu.get_children():
        if gtk3_text(child) == label:
            return child
    return None


def descendants(widget):
    child = widget.get_first_child()
    while child is not None:
        yield child
        yield from descendants(child)
        child = child.get_next_sibling()


def gtk4_stack(popover):
    return next((w for w in descendants(popover) if isinstance(w, Gtk.Stack)), None)


def gtk4_buttons(widget):
    return [w for w in descendants(widget) if type(w).__name__ == "GtkModelButton" and w.get_visible()]


def gtk4_marks(popover):
    stack = gtk4_stack(popover)
    if stack is None:
        return []
    pages = {page.get_name(): page.get_child() for page in stack.get_pages()}

    def page_marks(name, prefix, seen):
        result = []
        for button in gtk4_buttons(pages[name]):
            text = button.get_property("text") or ""
            target = button.get_property("menu-name")
            role = int(button.get_property("role"))  # 0 normal, 1 check, 2 radio
            if target is not None and (target in seen or target not in pages):
                continue  # the back button of a submenu page
            checked = role != 0 and button.get_property("active")
            result.append(prefix + mark(text, checked, checked))
            if target is not None:
                result.extend(page_marks(target, prefix + text + ">", seen | {name}))
        return result

    return page_marks("main", "", set()) if "main" in pages else []


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    if options.present:
        name, path = "org.menubus.MenuBus1", present(bus, *options.present)
    else:
        name, path = options.reference
    model = Gio.DBusMenuModel.get(bus, name, path)
    actions = Gio.DBusActionGroup.get(bus, name, path)
    state = {"shown": False, "opened": False, "loaded": False}

    window = Gtk.Window(title="MenuBus live menu in GTK " + options.gtk)
    window.set_default_size(640, 400)
    window.insert_action_group("menubus", actions)
    if options.gtk == "3":
        window.show_all()
        menu = Gtk.Menu.new_from_model(model)
        menu.insert_action_group("menubus", actions)
        menu.attach_to_widget(window, None)
    else:
        box = Gtk.Box()
        window.set_child(box)
        menu = Gtk.PopoverMenu.new_from_model(model)
        menu.set_parent(box)
        menu.set_has_arrow(False)
        menu.set_autohide(False)
        window.present()

    def pop_up():
        if options.gtk == "3":
            rect = Gdk.Rectangle()
            rect.x, rect.y, rect.width, rect.height = 40, 40, 1, 1
            menu.popup_at_rect(window.get_window(), rect, Gdk.Gravity.NORTH_WEST, Gdk.Gravity.NORTH_WEST, None)
        else:
            menu.popup()

    def open_submenu():
        if options.gtk == "3":
            item = gtk3_find(menu, options.open)
            if item is None or item.get_submenu() is None or not menu.get_mapped():
                return False
            menu.select_item(item)
            return item.get_submenu().get_mapped()
        stack = gtk4_stack(menu)
        button = next((b for b in gtk4_buttons(menu) if b.get_property("text") == options.open), None)
        if stack is None or button is None or button.get_property("menu-name") is None:
            return False
        stack.set_visible_child_name(button.get_property("menu-name"))
        return True

    def open_submenu_label():
        if options.gtk == "3":
            item = gtk3_find(menu, options.open) if options.open else None
            submenu = item.get_submenu() if item is not None else None
            return options.open if submenu is not None and submenu.get_mapped() else None
        stack = gtk4_stack(menu)
        page = stack.get_visible_child_name() if stack is not None else None
        if page in (None, "main"):
            return None
        button = next((b for b in gtk4_buttons(menu) if b.get_property("menu-name") == page), None)
        return button.get_property("text") if button is not None else page

    def snapshot():
        tree = gmenu.snapshot(model, actions)
        if tree is None:
            if state["loaded"] and model.get_n_items() == 0:
                return {"items": [], "open": menu.get_mapped(), "submenu": None}
            return None
        state["loaded"] = True
        if not state["shown"]:
            if options.gtk == "3" and not window.get_mapped():
                return None
            state["shown"] = True
            pop_up()
            return None
        if options.open and not state["opened"]:
            state["opened"] = open_submenu()
            return None
        items = gtk3_marks(menu) if options.gtk == "3" else gtk4_marks(menu)
        return {"items": items, "open": menu.get_mapped(), "submenu": open_submenu_label()}

    def on_command(line):
        if not line.startswith("click "):
            return
        label = line[len("click "):]
        if options.gtk == "3":
            item = gtk3_find(menu, label)
            if item is None:
                fail("no GtkMenuItem labelled %r" % label)
            item.activate()
        else:
            button = next((b for b in gtk4_buttons(menu) if b.get_property("text") == label), None)
            if button is None:
                fail("no GtkModelButton labelled %r" % label)
            button.emit("clicked")
        bus.flush_sync(None)
        emit("CLICKED", {"label": label})

    follow(snapshot, on_command)


if __name__ == "__main__":
    main()
