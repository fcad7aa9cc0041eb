#!/usr/bin/python3
"""Resident memory per counted byte, for bench/load/budgets.sh --held: fills
menubusd's connection budgets with one shape of contexts (or of cached
deferred content) from CONNECTIONS connections, then prints what the budgets
count (Stats' held-bytes) against what menubusd's resident memory grew by.

Usage: held.py ADDRESS SHAPE CONNECTIONS
  SHAPE  titles     contexts of 200 items with 4,000-byte titles
         menu       contexts of 200 items as apps write them (short titles,
                    an icon, a shortcut, some in submenus)
         tiny       contexts of one short item each, up to the app's 256
         deferred   one cached deferred element per context, filled by the
                    app (ProvideElements) with 40 items as in `menu`: a
                    presenter presents each and dismisses it once filled
Prints "counted=BYTES grew=BYTES ratio=R contexts=N" (grew: VmRSS now less
VmRSS before the first connection, both 1 s after the last call)."""
import sys
import threading
import time

from gi.repository import Gio, GLib

BUS, PATH, IFACE = "org.menubus.MenuBus1", "/org/menubus/MenuBus1", "org.menubus.MenuBus1"
CLIENT_PATH = "/held/Client"
CLIENT_XML = """<node><interface name="org.menubus.MenuBus1.Client">
<method name="ProvideElements"><arg name="contextId" type="s" direction="in"/>
<arg name="elementId" type="s" direction="in"/><arg name="elements" type="a(ssa{sv})" direction="out"/></method>
</interface></node>"""
FLAGS = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION


def call(conn, member, signature, args, reply=None, path=PATH, iface=IFACE):
    return conn.call_sync(BUS, path, iface, member, GLib.Variant(signature, args) if signature else None,
                          GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 60000, None)


def s(text):
    return GLib.Variant("s", text)


def menu_items(count, tag):
    """Items as a text editor's context menu has them: a submenu every 20."""
    items, parent = [], ""
    for i in range(count):
        if i % 20 == 0:
            parent = f"{tag}-sub{i}"
            items.append((parent, "", {"type": s("menu"), "title": s(f"Submenu {i // 20}")}))
            continue
        items.append((f"{tag}-item{i}", parent, {"title": s(f"Recent document {i}.txt"), "icon": s("document-open"),
                                                  "shortcut": s(f"<Control>{chr(97 + i % 26)}")}))
    return items


def items_of(shape, index):
    if shape == "titles":
        return [(f"e{i}", "", {"title": s(chr(65 + index % 26) * 4000)}) for i in range(200)]
    if shape == "menu":
        return menu_items(200, f"c{index}")
    if shape == "tiny":
        return [("e", "", {"title": s("Open")})]
    return [("open", "", {"title": s("Open")}), ("recent", "", {"type": s("deferred")})]


def refused(error):
    if "LimitExceeded" not in error.message:
        raise error


def stats(conn):
    value = call(conn, "Get", "(ss)", (IFACE, "Stats"), "(v)", iface="org.freedesktop.DBus.Properties")
    return value.unpack()[0]


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def serve_deferred(conn):
    """The app's side: every deferred element is 40 items of `menu`."""
    def on_call(connection, sender, path, interface, method, parameters, invocation):
        context_id, element_id = parameters.unpack()
        invocation.return_value(GLib.Variant("(a(ssa{sv}))", (menu_items(40, f"{context_id}-{element_id}"),)))
    info = Gio.DBusNodeInfo.new_for_xml(CLIENT_XML)
    conn.register_object(CLIENT_PATH, info.interfaces[0], on_call, None, None)


def fill(address, shape, index, presenter):
    """One connection's contexts until its budget or the 256 contexts an app may have."""
    conn = Gio.DBusConnection.new_for_address_sync(address, FLAGS, None, None)
    if shape == "deferred":
        serve_deferred(conn)
    call(conn, "Register", "(soa{sv})", (f"org.example.Held{index}", CLIENT_PATH, {}))
    published = 0
    for number in range(256):
        context_id = f"c{number}"
        try:
            call(conn, "PublishContext", "(sa{sv}a(ssa{sv}))",
                 (context_id, {"kind": s("file")}, items_of(shape, number)), "(u)")
        except GLib.Error as error:
            refused(error)
            break
        published += 1
        if shape == "deferred" and not fill_deferred(presenter, conn.get_unique_name(), context_id):
            break
    return conn, published


def fill_deferred(presenter, owner, context_id):
    """Presents the context until the app's content is in the menu (cached
    by menubusd), then dismisses it; False once the content no longer fits."""
    try:
        path = call(presenter, "PresentMenu", "(sssa{sv})", (owner, context_id, "context", {}), "(o)").unpack()[0]
    except GLib.Error as error:
        refused(error)
        return False
    filled = False
    for _ in range(2000):
        layout = call(presenter, "GetLayout", None, None, "(ua(ssa{sv}))", path=path,
                      iface="org.menubus.MenuBus1.Menu").unpack()[1]
        if any(item[0].endswith("-item1") for item in layout):
            filled = True
            break
        if not any(item[0] == "recent" for item in layout):
            break
        time.sleep(0.002)
    call(presenter, "Dismiss", None, None, path=path, iface="org.menubus.MenuBus1.Menu")
    return filled


def main():
    address, shape, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    probe = Gio.DBusConnection.new_for_address_sync(address, FLAGS, None, None)
    pid = stats(probe)["pid"]
    time.sleep(1)
    before, held_before = rss_bytes(pid), stats(probe).get("held-bytes", 0)
    presenter = Gio.DBusConnection.new_for_address_sync(address, FLAGS, None, None)
    call(presenter, "Register", "(soa{sv})", ("org.example.HeldPresenter", "/p", {}))
    # The app connections answer ProvideElements on this thread's main
    # context while the filling thread makes its calls.
    loop = GLib.MainLoop()
    held, contexts = [], [0]

    def work():
        for index in range(count):
            conn, published = fill(address, shape, index, presenter)
            held.append(conn)
            contexts[0] += published
        GLib.idle_add(loop.quit)
    threading.Thread(target=work, daemon=True).start()
    loop.run()
    time.sleep(1)
    counted = stats(probe)["held-bytes"] - held_before
    grew = rss_bytes(pid) - before
    print(f"counted={counted} grew={grew} ratio={grew / max(counted, 1):.2f} contexts={contexts[0]}", flush=True)


if __name__ == "__main__":
    main()
