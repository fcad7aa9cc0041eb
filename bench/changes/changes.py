#!/usr/bin/python3
"""Live changes, menubusd beside the reference exporters making the same
change to the same menu, as each desktop consumer's own model sees them
(bench/changes/changes.sh runs this on a private bus).

  changes.py ROUNDS GLIB_EXPORTER DBUSMENU_SERVER [KDE_FOLLOWER]

Acts as a MenuBus app and as the presenter of its menus. Two changes:
  rename     UpdateItems renaming item 5 of a 12-item context menu;
             GLib's exporter: remove + insert of that item (what a GMenu
             app does); libdbusmenu-glib: property_set("label").
  selection  UpdateSelection between a range and everything selected in
             an edit menu (Cut, Copy, Delete, Select All, Format ▸), which
             removes and adds Select All; the references remove and insert
             that item.
Two protocol families, each with its own MenuBus context (so every change
reaches exactly one exporter):
  gmenu      menubusd vs GLib's g_dbus_connection_export_menu_model
             (Tests/consumers/glib_exporter.py), followed by a
             Gio.DBusMenuModel (what GTK 3 and GTK 4 draw from);
  dbusmenu   menubusd vs libdbusmenu-glib's DbusmenuServer
             (bench/changes/changes-dbusmenu-server.py), followed by
             libdbusmenu-glib's DbusmenuClient and, with KDE_FOLLOWER
             (bench/changes/changes-kde.cpp built), KDE's DBusMenuImporter.
Every round makes each (change, family) on each side, the side going
first rotating, and times from sending the request (built beforehand)
until each consumer's model shows it: menubusd (the app's call), the
reference told through its stdin (the change made in the process that
exports, as an app using the reference does), and a second process of the
same reference exporter, with its own menu, told by a D-Bus call (Apply on
org.menubus.Bench.Reference, sent as the app's call to menubusd is): the
reference exporter one bus call away from the app, where menubusd is.
When org.menubus.Bench.Floor is owned (bench/changes/changes-floor.c), a fourth
side: the same call to a service that answers it with a prebuilt signal
and does nothing else, timed until that signal arrives (no consumer
follows it): the floor under any service told by the app's call.
Also timed: until the first signal of the change reaches this process,
and menubusd's reply. Counts the signals and bytes each exporter sent for
one rename. Prints one JSON line.

With MENUBUS_BENCH_MARK set (bench/changes/changes-trace.sh), every change is
marked, right after its clock starts, by a write to /dev/null whose length
names it (`mark_code`), so a system-wide syscall trace can place it; the
JSON line then also gives each length's change and names the threads such
a trace must tell apart.
"""

import fcntl
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

import gi

gi.require_version("Dbusmenu", "0.4")
from gi.repository import Dbusmenu, Gio, GLib  # noqa: E402

MENUBUS = "org.menubus.MenuBus1"
MANAGER = "/org/menubus/MenuBus1"
GLIB_RENAME, GLIB_EDIT = "org.menubus.Bench.GLibRename", "org.menubus.Bench.GLibEdit"
DBUSMENU_REF = "org.menubus.Bench.Dbusmenu"
LABELS = ["Item %d" % index for index in range(12)]
RENAMED = 5
SOME = {"kind": GLib.Variant("s", "range"), "length": GLib.Variant("u", 5),
        "attributes": GLib.Variant("as", ["bold"])}
ALL = {"kind": GLib.Variant("s", "all"), "length": GLib.Variant("u", 11),
       "attributes": GLib.Variant("as", ["bold"])}
EDIT_CONTEXT = {"kind": GLib.Variant("s", "text"),
                "content-types": GLib.Variant("as", ["application/x-example-notes"]),
                "editable": GLib.Variant("b", True), "has-content": GLib.Variant("b", True),
                "rich-text": GLib.Variant("b", True)}
SETTLE = 0.03
FLOOR = "org.menubus.Bench.Floor"
REFERENCE_PATH, REFERENCE_INTERFACE = "/org/menubus/Bench/Reference", "org.menubus.Bench.Reference"
CHANGES, FAMILIES = ("rename", "selection"), ("gmenu", "dbusmenu")
SIDES = ("menubusd", "reference", "reference-bus", "floor")
MARK = os.open(os.devnull, os.O_WRONLY) if os.environ.get("MENUBUS_BENCH_MARK") else None
FAMILY_INTERFACES = {"gmenu": ("org.gtk.Menus", "org.gtk.Actions"), "dbusmenu": ("com.canonical.dbusmenu",)}


def mark_code(change, family, side):
    """The length of the marking write: hundreds the change, tens the family, ones the side."""
    return 100 * CHANGES.index(change) + 10 * FAMILIES.index(family) + 1 + SIDES.index(side)


def threads(pid):
    """The main thread of process `pid` and its GDBus worker ("gdbus"), by thread id."""
    named = {"main": pid}
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as comm:
            if comm.read().strip() == "gdbus":
                named["gdbus"] = int(tid)
    return named


def elements(label):
    return [("i%d" % index, "", {"title": GLib.Variant("s", label if index == RENAMED else text)})
            for index, text in enumerate(LABELS)]


def gmenu_labels(model):
    """Labels of a GMenuModel's items, through its sections."""
    labels = []
    for index in range(model.get_n_items()):
        section = model.get_item_link(index, "section")
        if section is not None:
            labels.extend(gmenu_labels(section))
            continue
        value = model.get_item_attribute_value(index, "label", None)
        labels.append(value.unpack() if value is not None else "")
    return labels


def dbusmenu_labels(client):
    root = client.get_root()
    if root is None:
        return []
    return [child.property_get("label") or "" for child in root.get_children()
            if child.property_get("type") != "separator"]


def renamed(text):
    return lambda labels: labels is not None and len(labels) > RENAMED and labels[RENAMED] == text


def selected(everything):
    def check(labels):
        return labels is not None and "Cut" in labels and (("Select All" in labels) != everything)
    return check


def main():
    rounds, glib_exporter, dbusmenu_server = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    kde_follower = sys.argv[4] if len(sys.argv) > 4 else None
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    context = GLib.MainContext.default()

    def call(member, signature, args, reply=None):
        return bus.call_sync(MENUBUS, MANAGER, MENUBUS, member, GLib.Variant(signature, args),
                             GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 5000, None)

    call("Register", "(soa{sv})", ("org.menubus.Bench", "/org/menubus/Bench/App", {}))
    paths = {}
    for family in ("gmenu", "dbusmenu"):
        call("PublishContext", "(sa{sv}a(ssa{sv}))",
             ("rename-" + family, {"kind": GLib.Variant("s", "item")}, elements(LABELS[RENAMED])))
        call("PublishContext", "(sa{sv}a(ssa{sv}))", ("edit-" + family, EDIT_CONTEXT, []))
        call("UpdateSelection", "(sa{sv})", ("edit-" + family, SOME))
        for change, kind in (("rename", "context"), ("selection", "edit")):
            prefix = "rename-" if change == "rename" else "edit-"
            paths[(change, family)] = call("PresentMenu", "(sssa{sv})", ("", prefix + family, kind, {}),
                                           "(o)").unpack()[0]

    def start(argv, *extra, env=None):
        process = subprocess.Popen(argv + list(extra), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   bufsize=1, env=env)
        if process.stdout.readline().strip() != "READY":
            sys.exit("%s did not start" % argv[-1])
        return process

    gmenu_rename = [{"label": text, "action": "i%d" % index} for index, text in enumerate(LABELS)]
    select_all = {"label": "Select All", "action": "select-all"}
    gmenu_edit = [{"section": [{"label": "Cut", "action": "cut"}, {"label": "Copy", "action": "copy"},
                               {"label": "Delete", "action": "delete"}, select_all]},
                  {"section": [{"label": "Format", "submenu": [{"label": "Bold", "action": "bold", "state": True},
                                                               {"label": "Italic", "action": "italic", "state": False},
                                                               {"label": "Underline", "action": "underline",
                                                                "state": False}]}]}]
    dbusmenu_edit = [{"label": "Cut"}, {"label": "Copy"}, {"label": "Delete"}, {"label": "Select All"},
                     {"separator": True},
                     {"label": "Format", "submenu": [{"label": "Bold"}, {"label": "Italic"}, {"label": "Underline"}]}]
    python = [sys.executable]
    # Each reference side has its own exporter process and menu, so every
    # side makes the same change each round (the selection toggles alike).
    references = {}  # (change, family, side) -> (process, bus name, path)
    for side, suffix in (("reference", ""), ("reference-bus", "Bus")):
        for (change, family), (script, name, path, menu) in {
                ("rename", "gmenu"): (glib_exporter, GLIB_RENAME, "/Rename", gmenu_rename),
                ("selection", "gmenu"): (glib_exporter, GLIB_EDIT, "/Edit", gmenu_edit),
                ("rename", "dbusmenu"): (dbusmenu_server, DBUSMENU_REF, "/Rename", [{"label": text} for text in LABELS]),
                ("selection", "dbusmenu"): (dbusmenu_server, DBUSMENU_REF + "Edit", "/Edit", dbusmenu_edit)}.items():
            references[(change, family, side)] = (start(python + [script, name + suffix, path, json.dumps(menu)]),
                                                  name + suffix, path)

    def reference_command(change, family, text=None, everything=None):
        if change == "rename":
            if family == "gmenu":
                command = {"op": "set", "path": [RENAMED], "entry": {"label": text, "action": "i%d" % RENAMED}}
            else:
                command = {"op": "label", "path": [RENAMED], "label": text}
        elif everything:
            command = {"op": "remove", "path": [0, 3] if family == "gmenu" else [3]}
        else:
            command = {"op": "insert", "path": [0, 3] if family == "gmenu" else [3],
                       "entry": select_all if family == "gmenu" else {"label": "Select All"}}
        return json.dumps(command) + "\n"

    # Who sent what: signals counted by sender and sized as marshalled.
    def ask_bus(member, name, reply):
        """One answer of the bus daemon about `name`."""
        return bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member,
                             GLib.Variant("(s)", (name,)), GLib.VariantType(reply), Gio.DBusCallFlags.NONE, 5000,
                             None).unpack()[0]

    def owner(name):
        return ask_bus("GetNameOwner", name, "(s)")
    senders = {owner(MENUBUS): "menubusd"}
    # The floor (bench/changes/changes-floor.c), when it runs: a service that
    # answers the app's call with a prebuilt signal and does nothing else.
    has_floor = ask_bus("NameHasOwner", FLOOR, "(b)")
    sides_run = ("menubusd", "reference", "reference-bus") + (("floor",) if has_floor else ())
    if has_floor:
        senders[owner(FLOOR)] = "floor"
    for (_, _, side), (_, name, _) in references.items():
        senders[owner(name)] = side
    sent = []  # (time, sender side, interface, member, bytes)

    def on_signal(connection, sender, object_path, interface, member, parameters):
        side = senders.get(sender)
        if side is None:
            return
        message = Gio.DBusMessage.new_signal(object_path, interface, member)
        message.set_body(parameters)
        sent.append((time.monotonic_ns(), side, object_path, interface, member,
                     len(message.to_blob(Gio.DBusCapabilityFlags.NONE))))

    for interface in ("org.gtk.Menus", "org.gtk.Actions", "com.canonical.dbusmenu"):
        bus.signal_subscribe(None, interface, None, None, None, Gio.DBusSignalFlags.NONE, on_signal)

    # The consumers: (change, family, side) -> [(consumer name, read labels)].
    consumers = {}
    followers = []  # the models and clients, kept alive
    kde_state = {}  # index -> list of (nanoseconds, labels)
    kde_index = {}
    followed = [(key, name, path) for key, (_, name, path) in references.items()]
    followed += [((change, family, "menubusd"), MENUBUS, path) for (change, family), path in paths.items()]
    for (change, family, side), bus_name, object_path in followed:
        if family == "gmenu":
            model = Gio.DBusMenuModel.get(bus, bus_name, object_path)
            followers.append(model)
            consumers[(change, family, side)] = [("gio", lambda model=model: gmenu_labels(model))]
        else:
            client = Dbusmenu.Client.new(bus_name, object_path)
            followers.append(client)
            readers = [("libdbusmenu", lambda client=client: dbusmenu_labels(client))]
            if kde_follower:
                index = len(kde_index)
                kde_index[(change, family, side)] = (index, bus_name, object_path)
                kde_state[index] = []
                readers.append(("kde", index))
            consumers[(change, family, side)] = readers

    kde = None
    if kde_follower:
        argv = [kde_follower]
        for _, bus_name, object_path in sorted(kde_index.values()):
            argv += [bus_name, object_path]
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        kde = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        fcntl.fcntl(kde.stdout.fileno(), fcntl.F_SETFL, os.O_NONBLOCK)
        pending = {"buffer": b""}

        def on_kde(fd, condition):
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            pending["buffer"] += chunk
            *lines, pending["buffer"] = pending["buffer"].split(b"\n")
            for line in lines:
                words = line.decode().split(" ", 3)
                if len(words) == 4 and words[0] == "MENU":
                    kde_state[int(words[1])].append((int(words[2]), json.loads(words[3])))
            return True

        GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, kde.stdout.fileno(), GLib.IOCondition.IN | GLib.IOCondition.HUP,
                              on_kde)

    def readers(key):
        return consumers[key]

    def satisfied(key, predicate, since, found):
        """Fills `found` (consumer -> seconds after `since`) for consumers showing the change."""
        now = time.monotonic_ns()
        for consumer, read in readers(key):
            if consumer in found:
                continue
            if consumer == "kde":
                for stamp, labels in kde_state[read]:
                    if stamp >= since and predicate(labels):
                        found[consumer] = (stamp - since) / 1e9
                        break
            elif predicate(read()):
                found[consumer] = (now - since) / 1e9
        return len(found) == len(readers(key))

    def wait(condition, timeout=10.0, what=""):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                sys.exit("timed out waiting for %s" % what)
            context.iteration(True)

    def settle(seconds=SETTLE):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            context.iteration(False)
            time.sleep(0.001)

    # Everything loaded as presented.
    for key in consumers:
        change = key[0]
        predicate = renamed(LABELS[RENAMED]) if change == "rename" else selected(False)
        wait(lambda key=key, predicate=predicate: satisfied(key, predicate, 0, {}), 30, "%s to load" % (key,))
    settle(0.3)

    # Named while every process runs: for bench/changes/changes-trace.sh.
    traced = None
    if MARK is not None:
        def pid(name):
            return ask_bus("GetConnectionUnixProcessID", name, "(u)")
        traced = {"bench": threads(os.getpid()),
                  "references": {"%s/%s/%s" % key: threads(entry[0].pid) for key, entry in references.items()},
                  "menubusd": pid(MENUBUS), "floor": pid(FLOOR) if has_floor else None,
                  "kde": kde.pid if kde else None}
    replies = []
    times = {}       # (change, family, side, consumer) -> [seconds]
    first_signal = {}  # (change, family, side) -> [seconds]
    counted = {}     # (family, side) -> [(interface, member, bytes)] for the first rename
    selected_all = {}  # (change, family, side) -> whether its menu shows everything selected
    for round_ in range(rounds):
        for change in ("rename", "selection"):
            for family in ("gmenu", "dbusmenu"):
                turn = round_ % len(sides_run)
                for side in sides_run[turn:] + sides_run[:turn]:
                    key = (change, family, side)
                    text = "Renamed %d%s" % (round_, side[-1])
                    everything = selected_all[key] = not selected_all.get(key, False)
                    predicate = renamed(text) if change == "rename" else selected(everything)
                    if side in ("menubusd", "floor"):
                        if change == "rename":
                            member, body = "UpdateItems", GLib.Variant("(sa(ssa{sv}))",
                                                                       ("rename-" + family, elements(text)))
                        else:
                            member, body = "UpdateSelection", GLib.Variant(
                                "(sa{sv})", ("edit-" + family, ALL if everything else SOME))
                    else:
                        process, name, _ = references[key]
                        command = reference_command(change, family, text, everything)
                        told = GLib.Variant("(s)", (command.rstrip("\n"),))
                    before = len(sent)
                    found = {}
                    since = time.monotonic_ns()
                    if MARK is not None:
                        os.write(MARK, b"x" * mark_code(change, family, side))
                    if side == "floor":
                        bus.call(FLOOR, MANAGER, MENUBUS, member, body, None, Gio.DBusCallFlags.NONE, 5000, None,
                                 lambda connection, result: connection.call_finish(result))
                    elif side == "menubusd":
                        bus.call(MENUBUS, MANAGER, MENUBUS, member, body, None, Gio.DBusCallFlags.NONE, 5000, None,
                                 lambda connection, result, since=since: (
                                     connection.call_finish(result), replies.append((time.monotonic_ns() - since) / 1e9)))
                    elif side == "reference-bus":
                        bus.call(name, REFERENCE_PATH, REFERENCE_INTERFACE, "Apply", told, None,
                                 Gio.DBusCallFlags.NONE, 5000, None, lambda connection, result: connection.call_finish(result))
                    else:
                        process.stdin.write(command)
                        process.stdin.flush()
                    if side == "floor":
                        # No consumer follows it: until its signal arrives. Each
                        # wakeup still reads menubusd's consumers of this change,
                        # so the loop does the same work as for the other sides.
                        mirror = (change, family, "menubusd")
                        wait(lambda: satisfied(mirror, lambda labels: False, since, {})
                             or any(entry[1] == "floor" for entry in sent[before:]), 10, "the floor's signal")
                    else:
                        wait(lambda: satisfied(key, predicate, since, found), 10, "%s %s" % (key, text))
                    for consumer, seconds in found.items():
                        times.setdefault(key + (consumer,), []).append(seconds)
                    settle()
                    mine = [entry for entry in sent[before:] if entry[1] == side
                            and entry[3] in FAMILY_INTERFACES[family]]
                    if mine:
                        first_signal.setdefault(key, []).append((mine[0][0] - since) / 1e9)
                    if change == "rename" and round_ == 0 and side in ("menubusd", "reference"):
                        counted[(family, side)] = [(entry[3], entry[4], entry[5]) for entry in sent[before:]
                                                   if entry[1] == side]
    for process in [entry[0] for entry in references.values()]:
        process.stdin.close()
        process.wait(timeout=5)
    if kde:
        kde.stdin.close()
        kde.wait(timeout=5)

    def ms(values):
        return round(statistics.median(values) * 1000, 3) if values else None

    result = {"rounds": rounds, "latency": [], "signals": {}}
    for change in ("rename", "selection"):
        for family in ("gmenu", "dbusmenu"):
            for consumer, _ in readers((change, family, "menubusd")):
                ours = times.get((change, family, "menubusd", consumer), [])
                theirs = times.get((change, family, "reference", consumer), [])
                over_bus = times.get((change, family, "reference-bus", consumer), [])
                per_round = [a / b for a, b in zip(ours, theirs) if b > 0]
                per_round_bus = [a / b for a, b in zip(ours, over_bus) if b > 0]
                result["latency"].append({
                    "change": change, "family": family, "consumer": consumer,
                    "menubusd_ms": ms(ours), "reference_ms": ms(theirs),
                    "ratio": round(statistics.median(ours) / statistics.median(theirs), 3),
                    "per_round_ratio": round(statistics.median(per_round), 3),
                    "reference_bus_ms": ms(over_bus),
                    "ratio_bus": round(statistics.median(ours) / statistics.median(over_bus), 3),
                    "per_round_ratio_bus": round(statistics.median(per_round_bus), 3),
                    "menubusd_first_signal_ms": ms(first_signal.get((change, family, "menubusd"), [])),
                    "reference_first_signal_ms": ms(first_signal.get((change, family, "reference"), [])),
                    "reference_bus_first_signal_ms": ms(first_signal.get((change, family, "reference-bus"), [])),
                    "floor_first_signal_ms": ms(first_signal.get((change, family, "floor"), [])),
                })
    result["menubusd_reply_ms"] = ms(replies)
    if MARK is not None:
        result["threads"], result["mark_fd"] = traced, MARK
        result["marks"] = {str(mark_code(*key)): key for key in itertools.product(CHANGES, FAMILIES, SIDES)}
    for (family, side), entries in sorted(counted.items()):
        protocol = [entry for entry in entries if entry[0] in FAMILY_INTERFACES[family]]
        result["signals"]["%s/%s" % (family, side)] = {
            "signals": len(protocol), "bytes": sum(entry[2] for entry in protocol),
            "members": ["%s.%s %d" % entry for entry in protocol],
            "other": ["%s.%s %d" % entry for entry in entries if entry[0] not in FAMILY_INTERFACES[family]]}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
