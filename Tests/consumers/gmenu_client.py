#!/usr/bin/python3
"""A real org.gtk.Menus / org.gtk.Actions consumer: GLib's GDBusMenuModel and
GDBusActionGroup, through python3-gi, as a GTK app would use them.

  gmenu_client.py OWNER CONTEXT KIND read [LABEL]
      presents the menu, prints TREE (items, sections, submenus, and each
      item's action as GDBusActionGroup describes it), then with LABEL
      activates that item's action and prints ACTIVATED.
  gmenu_client.py OWNER CONTEXT KIND watch
      prints TREE and READY; after the test changes the menu, prints
      CHANGED with what the model holds then.
  gmenu_client.py OWNER CONTEXT KIND follow
      prints TREE {"items": [...]} (see common.mark) each time the model
      changed and settled; stdin: "click LABEL" activates that item's
      action, "quit".
"""

import sys

from gi.repository import Gio, GLib

import gmenu
from common import Settled, emit, fail, follow, present


def main():
    owner, context, kind, mode = sys.argv[1:5]
    label = sys.argv[5] if len(sys.argv) > 5 else None
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    path = present(bus, owner, context, kind)
    model, actions = gmenu.connect(bus, path)
    if mode == "follow":
        loaded = []

        def snapshot():
            tree = gmenu.snapshot(model, actions)
            if tree is None:
                # Loaded once, nothing now: the menu was emptied.
                return {"items": []} if loaded and model.get_n_items() == 0 else None
            loaded.append(True)
            return {"items": gmenu.marks(tree)}

        def on_command(line):
            if line.startswith("click "):
                item = gmenu.find(gmenu.snapshot(model, actions) or [], line[len("click "):])
                if item is None or "action" not in item:
                    fail("no item labelled %r with an action" % line[len("click "):])
                target = item.get("target")
                actions.activate_action(item["action"][len(gmenu.PREFIX):],
                                        GLib.Variant("s", target) if target is not None else None)
                bus.flush_sync(None)
                emit("CLICKED", {"label": item["label"]})
        return follow(snapshot, on_command)
    loop = GLib.MainLoop()
    state = {"phase": "initial", "settled": None}

    def check():
        tree = gmenu.snapshot(model, actions)
        if tree is None:
            return True
        if state["phase"] == "initial":
            state["phase"] = "shown"
            state["settled"] = Settled(tree)
            emit("TREE", {"items": tree})
            if mode == "read" and label is not None:
                item = gmenu.find(tree, label)
                if item is None or "action" not in item:
                    fail("no item labelled %r with an action" % label)
                target = item.get("target")
                parameter = GLib.Variant("s", target) if target is not None else None
                actions.activate_action(item["action"][len(gmenu.PREFIX):], parameter)
                bus.flush_sync(None)
                emit("ACTIVATED", {"action": item["action"]})
                loop.quit()
            elif mode == "read":
                loop.quit()
            else:
                emit("READY")
        elif mode == "watch" and state["settled"].changed(tree) is not None:
            emit("CHANGED", {"items": tree})
            loop.quit()
        return True

    GLib.timeout_add(20, check)
    GLib.timeout_add_seconds(15, lambda: fail("timed out in phase %s" % state["phase"]))
    loop.run()


if __name__ == "__main__":
    main()
