#!/usr/bin/python3
"""One-label live changes, menubusd beside GLib's own exporter, as a GTK
consumer sees them (bench/changes.sh runs this on a private bus).

  changes.py ROUNDS GLIB_EXPORTER_SCRIPT

Acts as a MenuBus app publishing a 12-item menu and as the presenter of it;
GLib's exporter (Tests/consumers/glib_exporter.py, another process) serves
the same menu. A GDBusMenuModel follows each. Each round renames the same
item in both, interleaved: for menubusd by UpdateItems, for GLib by the
exporter's own remove + insert (what a GMenu app does). Measures the time
from sending the request (built beforehand) until the model reports the new label, and counts the
org.gtk.Menus/org.gtk.Actions signals and their bytes each exporter sent
for one rename. Prints one JSON line.
"""

import json
import statistics
import subprocess
import sys
import time

from gi.repository import Gio, GLib

MENUBUS = "org.menubus.MenuBus1"
REFERENCE = "org.menubus.Bench.GLibExporter"
REFERENCE_PATH = "/org/menubus/Bench/Reference"
LABELS = ["Item %d" % index for index in range(12)]
RENAMED = 5


def elements(label):
    return [("i%d" % index, "", {"title": GLib.Variant("s", label if index == RENAMED else text)})
            for index, text in enumerate(LABELS)]


def main():
    rounds, exporter = int(sys.argv[1]), sys.argv[2]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    def call(path, interface, member, signature, args, reply=None):
        return bus.call_sync(MENUBUS, path, interface, member, GLib.Variant(signature, args),
                             GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 5000, None)

    manager = "/org/menubus/MenuBus1"
    call(manager, MENUBUS, "Register", "(soa{sv})", ("org.menubus.Bench", "/org/menubus/Bench/App", {}))
    call(manager, MENUBUS, "PublishContext", "(sa{sv}a(ssa{sv}))",
         ("row", {"kind": GLib.Variant("s", "item")}, elements(LABELS[RENAMED])))
    path = call(manager, MENUBUS, "PresentMenu", "(sssa{sv})", ("", "row", "context", {}), "(o)").unpack()[0]

    spec = json.dumps([{"label": text, "action": "i%d" % index} for index, text in enumerate(LABELS)])
    glib = subprocess.Popen([sys.executable, exporter, REFERENCE, REFERENCE_PATH, spec],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    if glib.stdout.readline().strip() != "READY":
        sys.exit("the GLib exporter did not start")

    # Signals each exporter sends, counted by their sender and sized as marshalled.
    owners = {name: bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                  "GetNameOwner", GLib.Variant("(s)", (name,)), GLib.VariantType("(s)"),
                                  Gio.DBusCallFlags.NONE, 5000, None).unpack()[0] for name in (MENUBUS, REFERENCE)}
    sent = {MENUBUS: [], REFERENCE: []}

    def on_signal(connection, sender, object_path, interface, member, parameters):
        for name, owner in owners.items():
            if sender == owner:
                message = Gio.DBusMessage.new_signal(object_path, interface, member)
                message.set_body(parameters)
                sent[name].append(len(message.to_blob(Gio.DBusCapabilityFlags.NONE)))

    for interface in ("org.gtk.Menus", "org.gtk.Actions"):
        bus.signal_subscribe(None, interface, None, None, None, Gio.DBusSignalFlags.NONE, on_signal)

    models = {MENUBUS: Gio.DBusMenuModel.get(bus, MENUBUS, path),
              REFERENCE: Gio.DBusMenuModel.get(bus, REFERENCE, REFERENCE_PATH)}
    context = GLib.MainContext.default()

    def label(model):
        if model.get_n_items() <= RENAMED:
            return None
        value = model.get_item_attribute_value(RENAMED, "label", None)
        return value.unpack() if value is not None else None

    def wait(predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                sys.exit("timed out")
            context.iteration(True)

    for model in models.values():
        model.get_n_items()  # subscribes
        wait(lambda: label(model) == LABELS[RENAMED])

    # Requests are built before the clock starts: building a GVariant in
    # Python costs more than the call itself.
    def request(name, text):
        if name == MENUBUS:
            return GLib.Variant("(sa(ssa{sv}))", ("row", elements(text)))
        return json.dumps({"op": "set", "path": [RENAMED], "entry": {"label": text, "action": "i%d" % RENAMED}}) + "\n"

    def rename(name, prepared):
        if name == MENUBUS:
            bus.call(MENUBUS, manager, MENUBUS, "UpdateItems", prepared, None, Gio.DBusCallFlags.NONE, 5000,
                     None, None, None)
        else:
            glib.stdin.write(prepared)
            glib.stdin.flush()

    times = {MENUBUS: [], REFERENCE: []}
    counted = {}
    for round_ in range(rounds):
        for name in (MENUBUS, REFERENCE) if round_ % 2 == 0 else (REFERENCE, MENUBUS):
            text = "Renamed %d" % round_
            before = len(sent[name])
            prepared = request(name, text)
            start = time.perf_counter()
            rename(name, prepared)
            wait(lambda: label(models[name]) == text)
            times[name].append(time.perf_counter() - start)
            # Let the rest of this change's signals arrive before counting.
            end = time.monotonic() + 0.05
            while time.monotonic() < end:
                context.iteration(False)
            if round_ == 0:
                counted[name] = sent[name][before:]
    glib.stdin.close()
    glib.wait(timeout=5)
    result = {}
    for name, key in ((MENUBUS, "menubusd"), (REFERENCE, "glib")):
        result[key] = {"median_ms": statistics.median(times[name]) * 1000,
                       "signals": len(counted[name]), "bytes": sum(counted[name])}
    result["ratio"] = result["menubusd"]["median_ms"] / result["glib"]["median_ms"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
