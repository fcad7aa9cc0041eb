#!/usr/bin/python3
"""Hostile connections for bench/load/budgets.sh: each registers, publishes the
largest contexts menubusd takes until it answers LimitExceeded, presents
them until LimitExceeded, then prints FULL and holds everything until stdin
closes. With HOSTILE_UNDO_MIB=N in the environment each also registers
N undo steps of 1 MiB in one document (its undo quota), counted in FULL.
Usage: hostile.py ADDRESS CONNECTIONS
       hostile.py ADDRESS large-calls   five 2 MiB Lint calls of 2,500 items,
                                        each refused (too many items) once
                                        menubusd has decoded it: nothing is
                                        stored, what was decoded is freed
       hostile.py ADDRESS many-values   one Lint call of 1.9 million tiny
                                        values (av of v(y), 8 MB on the wire,
                                        within the byte limit), refused
       hostile.py ADDRESS ordinary      one app that behaves: registers,
                                        publishes a small context, presents
                                        its menu, takes one small undo step
                                        and leaves (what a daemon in a
                                        session has served before any load)"""
import os
import sys

from gi.repository import Gio, GLib

BUS, PATH, IFACE = "org.menubus.MenuBus1", "/org/menubus/MenuBus1", "org.menubus.MenuBus1"


def call(conn, member, signature, args, reply=None):
    return conn.call_sync(BUS, PATH, IFACE, member, GLib.Variant(signature, args),
                          GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 60000, None)


def items(count, tag):
    title = GLib.Variant("s", tag * 4000)
    return [(f"e{i}", "", {"title": title}) for i in range(count)]


def publish(conn, context, count):
    call(conn, "PublishContext", "(sa{sv}a(ssa{sv}))",
         (context, {"kind": GLib.Variant("s", "file")}, items(count, chr(65 + len(context) % 26))), "(u)")


def refused(error):
    if "LimitExceeded" not in error.message:
        raise error
    return True


def fill(conn, index):
    """One large context presented until the budget says no (presentations
    hold the most per call), then contexts of shrinking size in what is left."""
    call(conn, "Register", "(soa{sv})", (f"org.example.Hostile{index}", "/c", {}))
    stored, presented = 0, 0
    try:
        publish(conn, "big", 200)
        stored += 1
        while presented < 64:
            call(conn, "PresentMenu", "(sssa{sv})", ("", "big", "context", {}), "(o)")
            presented += 1
    except GLib.Error as error:
        refused(error)
    for count in (500, 100, 20, 4, 1):
        while stored < 256:
            try:
                publish(conn, f"c{stored}", count)
                stored += 1
            except GLib.Error as error:
                refused(error)
                break
    return stored, presented, fill_undo(conn)


def fill_undo(conn):
    """HOSTILE_UNDO_MIB steps of 1 MiB (512 KiB each way) in one document,
    until menubusd says no; the MiB it took."""
    # Made once from bytes: PyGObject would build each `ay` byte by byte.
    half = GLib.Variant.new_from_bytes(GLib.VariantType("ay"), GLib.Bytes.new(b"u" * (512 << 10)), True)
    taken = 0
    for step in range(int(os.environ.get("HOSTILE_UNDO_MIB", "0"))):
        try:
            arguments = GLib.Variant.new_tuple(GLib.Variant("s", "journal"), GLib.Variant("s", f"Step {step}"),
                                               half, half, GLib.Variant("a{sv}", {}))
            conn.call_sync(BUS, PATH, IFACE, "RegisterUndo", arguments, GLib.VariantType("(u)"),
                           Gio.DBusCallFlags.NONE, 60000, None)
            taken += 1
        except GLib.Error as error:
            refused(error)
            break
    return taken


def large_calls(address, flags):
    conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    note = GLib.Variant("v", GLib.Variant("ai", list(range(200))))
    body = ("context", [(f"i{i}", f"Title {i}", {"note": note}) for i in range(2500)])
    for _ in range(5):
        try:
            call(conn, "Lint", "(sa(ssa{sv}))", body)
        except GLib.Error as error:
            refused(error)
    print("DONE", flush=True)


def many_values(address, flags):
    conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    tiny = GLib.Variant("av", [GLib.Variant("y", 1)] * 1_900_000)
    try:
        call(conn, "Lint", "(sa(ssa{sv}))", ("context", [("e", "E", {"note": tiny})]))
    except GLib.Error as error:
        refused(error)
    print("DONE", flush=True)


def ordinary(address, flags):
    conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    call(conn, "Register", "(soa{sv})", ("org.example.Ordinary", "/c", {}))
    items = [(f"e{i}", "", {"title": GLib.Variant("s", f"Item {i}")}) for i in range(3)]
    call(conn, "PublishContext", "(sa{sv}a(ssa{sv}))", ("text", {"kind": GLib.Variant("s", "text")}, items), "(u)")
    call(conn, "PresentMenu", "(sssa{sv})", ("", "text", "context", {}), "(o)")
    step = GLib.Variant.new_from_bytes(GLib.VariantType("ay"), GLib.Bytes.new(b"t" * 64), True)
    conn.call_sync(BUS, PATH, IFACE, "RegisterUndo",
                   GLib.Variant.new_tuple(GLib.Variant("s", "notes"), GLib.Variant("s", "Typing"), step, step,
                                          GLib.Variant("a{sv}", {})),
                   GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 60000, None)
    conn.close_sync(None)
    print("DONE", flush=True)


def main():
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    if sys.argv[2] == "large-calls":
        return large_calls(sys.argv[1], flags)
    if sys.argv[2] == "many-values":
        return many_values(sys.argv[1], flags)
    if sys.argv[2] == "ordinary":
        return ordinary(sys.argv[1], flags)
    address, count = sys.argv[1], int(sys.argv[2])
    connections, totals = [], [0, 0, 0]
    for index in range(count):
        conn = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
        stored, presented, undo = fill(conn, index)
        totals[0] += stored
        totals[1] += presented
        totals[2] += undo
        connections.append(conn)
    print(f"FULL contexts={totals[0]} presentations={totals[1]} undo-mib={totals[2]}", flush=True)
    sys.stdin.read()
    for conn in connections:
        conn.close_sync(None)


if __name__ == "__main__":
    main()
