#!/usr/bin/python3
"""Undo load for bench/load/budgets.sh.
  undo-load.py ADDRESS fill DOCUMENTS STEPS   fill the store: DOCUMENTS documents
                                               of STEPS 1 MiB steps each
  undo-load.py ADDRESS latency CALLS [churn [STEP_BYTES]|floor]
                                               GetEditMenu round trips of one
                                               app (p50/p99 in ms), optionally while
                                               another connection keeps a 40 MiB
                                               document compacting (churn; 1 MiB
                                               steps unless STEP_BYTES), or sends
                                               the same 1 MiB calls that menubusd
                                               refuses before decoding them (floor:
                                               what carrying them over the bus costs)
  undo-load.py ADDRESS ping-latency CALLS [floor]  Peer.Ping round trips to whoever
                                               owns org.menubus.MenuBus1 (a reference
                                               server), optionally during the floor's
                                               1 MiB calls"""
import os
import sys
import subprocess
import threading
import time

from gi.repository import Gio, GLib

BUS, PATH, IFACE = "org.menubus.MenuBus1", "/org/menubus/MenuBus1", "org.menubus.MenuBus1"
MIB = b"u" * ((1 << 20) - 4096)
LIVE_BYTES = 40 << 20  # what the churned document keeps: 40 steps of 1 MiB


def connect(address):
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def call(conn, member, signature, args, reply=None):
    return conn.call_sync(BUS, PATH, IFACE, member, GLib.Variant(signature, args) if signature else None,
                          GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 60000, None)


# GLib.Variant("ay", bytes) builds byte by byte; from GBytes it is one copy.
AY = GLib.VariantType("ay")
MIB_VARIANT = GLib.Variant.new_from_bytes(AY, GLib.Bytes.new(MIB), True)
REDO_VARIANT = GLib.Variant.new_from_bytes(AY, GLib.Bytes.new(b"r"), True)


def payload(step_bytes):
    if step_bytes == len(MIB):
        return MIB_VARIANT
    return GLib.Variant.new_from_bytes(AY, GLib.Bytes.new(b"u" * step_bytes), True)


def register_step(conn, document, name, undo=MIB_VARIANT):
    params = GLib.Variant.new_tuple(GLib.Variant("s", document), GLib.Variant("s", name), undo,
                                    REDO_VARIANT, GLib.Variant("a{sv}", {}))
    conn.call_sync(BUS, PATH, IFACE, "RegisterUndo", params, GLib.VariantType("(u)"),
                   Gio.DBusCallFlags.NONE, 60000, None)


def fill(address, documents, steps):
    """Eight documents an app, as many apps as it takes: one app may keep
    only --undo-app-disk-budget (256 MiB) on disk."""
    conn = None
    for d in range(documents):
        if d % 8 == 0:
            if conn is not None:
                conn.close_sync(None)
            conn = connect(address)
            call(conn, "Register", "(soa{sv})", (f"org.example.Filler{d // 8}", "/c", {}))
        for s in range(steps):
            register_step(conn, f"doc{d}", f"Step {s}")


def churn(address, stop, step_bytes=len(MIB)):
    """A document kept near its quota (40 MiB live), its oldest steps dropped
    by the level limit, so its journal keeps outgrowing what is live and
    compacts. Smaller steps compact the same bytes with less on the bus."""
    conn = connect(address)
    call(conn, "Register", "(soa{sv})", ("org.example.Churner", "/c", {}))
    call(conn, "SetUndoLimit", "(su)", ("big", LIVE_BYTES // step_bytes), None)
    undo = payload(step_bytes)
    index = 0
    while not stop.is_set():
        register_step(conn, "big", f"Step {index}", undo)
        index += 1


def floor(address, stop, expected="InvalidArgs"):
    """The churn's 1 MiB messages, sent with one argument short: menubusd
    answers InvalidArgs from the signature alone, so only the bus and
    libdbus's reading of the message remain. (A reference server answers
    with any error: expected None.)"""
    conn = connect(address)
    if expected:
        call(conn, "Register", "(soa{sv})", ("org.example.Churner", "/c", {}))
    while not stop.is_set():
        params = GLib.Variant.new_tuple(GLib.Variant("s", "big"), GLib.Variant("s", "Step"), MIB_VARIANT,
                                        REDO_VARIANT)
        try:
            conn.call_sync(BUS, PATH, IFACE, "RegisterUndo", params, None, Gio.DBusCallFlags.NONE, 60000, None)
        except GLib.Error as error:
            if expected and expected not in str(error):
                raise


def latency(address, calls, load, ping=False):
    """Round trips of one app while `load` (argv for this script's load
    modes, or None) runs in its own process, so it does not share this
    one's interpreter lock."""
    conn = connect(address)
    if not ping:
        call(conn, "Register", "(soa{sv})", ("org.example.Reader", "/c", {}))
        call(conn, "PublishContext", "(sa{sv}a(ssa{sv}))",
             ("field", {"kind": GLib.Variant("s", "text"), "editable": GLib.Variant("b", True)}, []), "(u)")
    worker = None
    if load:
        worker = subprocess.Popen([sys.executable, __file__, address] + load)
        time.sleep(1.0)  # the document reaches its quota before measuring
    renames = count_renames(os.environ.get("UNDO_LOAD_STATE_DIR"))
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        if ping:
            conn.call_sync(BUS, PATH, "org.freedesktop.DBus.Peer", "Ping", None, None,
                           Gio.DBusCallFlags.NONE, 60000, None)
        else:
            call(conn, "GetEditMenu", "(ssa{sv})", ("", "field", {}))
        samples.append((time.perf_counter() - start) * 1000)
        time.sleep(0.002)
    if worker:
        worker.terminate()
        worker.wait()
    samples.sort()
    compactions = f" compactions={renames()}" if renames else ""
    print(f"p50={samples[len(samples) // 2]:.3f} p99={samples[int(len(samples) * 0.99)]:.3f} max={samples[-1]:.3f}"
          + compactions)


def count_renames(state_dir):
    """Counts finished compactions in its own process (a thread here would
    take this one's interpreter lock from the calls it times): a compaction
    renames a new file over its journal, so a `*.undo` name gets a new
    inode. Returns a function that stops the watcher and gives the count."""
    if not state_dir:
        return None
    watcher = subprocess.Popen([sys.executable, __file__, state_dir, "watch-journals"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def finish():
        out, _ = watcher.communicate("stop\n")
        return int(out.strip() or 0)
    return finish


def watch_journals(state_dir):
    """Every 5 ms until stdin closes or says stop: prints how many times a
    journal (`*.undo`) under state_dir got a new inode."""
    inodes, count, stop = {}, [0], threading.Event()

    def scan():
        for root, _, files in os.walk(state_dir):
            for name in files:
                if not name.endswith(".undo"):
                    continue
                path = os.path.join(root, name)
                try:
                    inode = os.stat(path).st_ino
                except FileNotFoundError:
                    continue
                if inodes.get(path, inode) != inode:
                    count[0] += 1
                inodes[path] = inode

    def wait_for_stop():
        sys.stdin.readline()
        stop.set()

    threading.Thread(target=wait_for_stop, daemon=True).start()
    scan()
    while not stop.wait(0.005):
        scan()
    print(count[0])


if __name__ == "__main__":
    address, mode = sys.argv[1], sys.argv[2]
    if mode == "churn":
        churn(address, threading.Event(), int(sys.argv[3]) if len(sys.argv) > 3 else len(MIB))
    elif mode == "floor":
        floor(address, threading.Event())
    elif mode == "floor-any-error":
        floor(address, threading.Event(), expected=None)
    elif mode == "watch-journals":
        watch_journals(address)  # the first argument is the state directory here
    elif mode == "fill":
        fill(address, int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "ping-latency":
        latency(address, int(sys.argv[3]), ["floor-any-error"] if sys.argv[4:] == ["floor"] else None, ping=True)
    else:
        latency(address, int(sys.argv[3]), sys.argv[4:] or None)
