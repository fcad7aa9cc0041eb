#!/usr/bin/python3
"""Time from choosing a provider's item to replace-selection at the app.

An app registers, publishes an editable text field with selected text and,
for each sample, presents its edit menu and activates the provider's item;
the time runs from just before Activate until PerformCommand(replace-selection)
arrives at the app. Mode "cold": before each sample the provider's process is
stopped and the sample waits until menubusd offers its declaration again, so
the choice starts it by D-Bus activation. Mode "warm": the provider stays
running. Prints one line per mode: samples in milliseconds, sorted.

    providers-client.py ITEM BUSNAME SAMPLES
"""
import os, signal, sys, time
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib

BUS = "org.menubus.MenuBus1"
MANAGER = "/org/menubus/MenuBus1"
CLIENT = "/org/example/Bench"
XML = """<node><interface name='org.menubus.MenuBus1.Client'>
<method name='PerformCommand'><arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='a{sv}' direction='in'/></method>
<method name='ActionInvoked'><arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='a{sv}' direction='in'/></method>
</interface></node>"""

item, provider_name, samples = sys.argv[1], sys.argv[2], int(sys.argv[3])
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
arrived = []


def on_call(connection, sender, path, interface, method, params, invocation):
    if method == "PerformCommand":
        _, command, arguments = params.unpack()
        if command == "replace-selection":
            arrived.append((time.monotonic(), arguments.get("undo-name")))
    invocation.return_value(None)


node = Gio.DBusNodeInfo.new_for_xml(XML)
bus.register_object(CLIENT, node.interfaces[0], on_call, None, None)


def call(member, args, reply, path=MANAGER, interface="org.menubus.MenuBus1", dest=BUS):
    return bus.call_sync(dest, path, interface, member, args, GLib.VariantType(reply) if reply else None,
                         Gio.DBusCallFlags.NONE, 30000, None)


def pump_until(done, seconds):
    deadline = time.monotonic() + seconds
    context = GLib.MainContext.default()
    while not done() and time.monotonic() < deadline:
        context.iteration(False) or time.sleep(0.0005)
    return done()


def provider_running():
    return call("NameHasOwner", GLib.Variant("(s)", (provider_name,)), "(b)", "/org/freedesktop/DBus",
                "org.freedesktop.DBus", "org.freedesktop.DBus").unpack()[0]


def offered_as_declaration():
    (rows,) = call("ListProviders", None, "(a(sa{sv}))").unpack()
    wanted = item.split("menubus:provider:", 1)[-1]
    return any(pid == wanted and not props.get("running") for pid, props in rows)


def stop_provider():
    if not provider_running():
        return
    (pid,) = call("GetConnectionUnixProcessID", GLib.Variant("(s)", (provider_name,)), "(u)", "/org/freedesktop/DBus",
                  "org.freedesktop.DBus", "org.freedesktop.DBus").unpack()
    os.kill(pid, signal.SIGTERM)
    if not pump_until(lambda: not provider_running() and offered_as_declaration(), 10):
        raise SystemExit("the provider did not stop")


call("Register", GLib.Variant("(soa{sv})", ("org.example.Bench", CLIENT, {})), None)
context = {"kind": GLib.Variant("s", "text"), "editable": GLib.Variant("b", True),
           "has-content": GLib.Variant("b", True)}
call("PublishContext", GLib.Variant("(sa{sv}a(ssa{sv}))", ("f", context, [])), "(u)")
selection = {"kind": GLib.Variant("s", "range"), "length": GLib.Variant("u", 11),
             "text": GLib.Variant("s", "hello world")}
call("UpdateSelection", GLib.Variant("(sa{sv})", ("f", selection)), None)


def sample():
    (path,) = call("PresentMenu", GLib.Variant("(sssa{sv})", ("", "f", "edit", {})), "(o)").unpack()
    count = len(arrived)
    start = time.monotonic()
    call("Activate", GLib.Variant("(sa{sv})", (item, {})), None, path, "org.menubus.MenuBus1.Menu")
    if not pump_until(lambda: len(arrived) > count, 30):
        raise SystemExit("replace-selection did not arrive")
    when, undo_name = arrived[-1]
    if not undo_name:
        raise SystemExit("replace-selection carried no undo-name")
    return (when - start) * 1000


for mode in ("cold", "warm"):
    times = []
    for _ in range(samples):
        if mode == "cold":
            stop_provider()
        times.append(sample())
    print(mode, " ".join(f"{t:.2f}" for t in sorted(times)))
stop_provider()
