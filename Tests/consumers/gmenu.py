"""Reads a remote GMenuModel and its GDBusActionGroup into plain values,
the way GTK's menu widgets see them."""

from gi.repository import Gio

from common import BUS_NAME, mark

PREFIX = "menubus."


def connect(bus, path):
    """GLib's own org.gtk.Menus and org.gtk.Actions clients for `path`."""
    return Gio.DBusMenuModel.get(bus, BUS_NAME, path), Gio.DBusActionGroup.get(bus, BUS_NAME, path)


def _attribute(model, index, name):
    value = model.get_item_attribute_value(index, name, None)
    return None if value is None else value.unpack()


# Linked menus stay referenced: GLib drops a proxy nobody holds and ends its
# subscription (End), so a model fetched afresh on every poll would never load.
_linked = []


def snapshot(model, actions):
    """The menu as a list of item dicts, or None while something is still
    loading: a linked menu without items yet, or an action not yet described.
    Reading `get_n_items` is what makes GLib subscribe (Start) to a group."""
    count = model.get_n_items()
    if count == 0:
        return None
    items = []
    for index in range(count):
        item = {}
        for name in ("label", "action", "target", "icon", "accel"):
            value = _attribute(model, index, name)
            if value is not None:
                item[name] = value
        for link in ("section", "submenu"):
            linked = model.get_item_link(index, link)
            if linked is not None:
                _linked.append(linked)
                content = snapshot(linked, actions)
                if content is None:
                    return None
                item[link] = content
        name = item.get("action", "")
        if name:
            if not name.startswith(PREFIX):
                raise ValueError("action %r is not under the prefix %r" % (name, PREFIX))
            local = name[len(PREFIX):]
            if not actions.has_action(local):
                actions.list_actions()  # starts DescribeAll the first time
                return None
            item["enabled"] = actions.get_action_enabled(local)
            state = actions.get_action_state(local)
            if state is not None:
                item["state"] = state.unpack()
            parameter = actions.get_action_parameter_type(local)
            if parameter is not None:
                item["parameter"] = parameter.dup_string()
        items.append(item)
    return items


def find(items, label):
    for item in items:
        if item.get("label") == label:
            return item
        for link in ("section", "submenu"):
            found = find(item.get(link, []), label)
            if found is not None:
                return found
    return None


def marks(items, prefix=""):
    """The follow mode's strings (common.mark) for a snapshot's items:
    sections inline, a submenu's items as "Submenu>item"."""
    result = []
    for item in items:
        if "section" in item:
            result.extend(marks(item["section"], prefix))
            continue
        label = item.get("label", "")
        state = item.get("state")
        if isinstance(state, bool):
            result.append(prefix + mark(label, True, state))
        elif state is not None and "target" in item:
            result.append(prefix + mark(label, True, state == item["target"]))
        else:
            result.append(prefix + label)
        if "submenu" in item:
            result.extend(marks(item["submenu"], prefix + label + ">"))
    return result
