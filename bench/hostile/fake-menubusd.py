#!/usr/bin/python3
"""A hostile org.menubus.MenuBus1: what any process of the session may do
while menubusd is not running, as the shims must survive it.

It owns org.menubus.MenuBus1 on the session bus (DBUS_SESSION_BUS_ADDRESS)
and serves /org/menubus/MenuBus1 and the presented menus
(/org/menubus/MenuBus1/menu/N) with the interfaces of dbus/*.xml. Each
method call takes the next behaviour of the mode (round-robin by default,
each method going round on its own, or seeded random):

    correct          what menubusd would answer (an edit menu of its own,
                     titled "MB Cut", "MB Make Uppercase", ...; a real undo
                     stack of the RegisterUndo steps it heard)
    wrong-signature  a reply of another type
    huge             10,000 elements (flat, nested 10,000 deep, orphans,
                     a root that is its own parent), 10,000 payloads
    long-titles      64 KiB titles, ids, shortcuts, paths, action names
    bad-utf8         invalid UTF-8 where the type allows bytes: `ay`
                     payloads, variants holding `ay` where `s` is expected
    error            a domain or standard error, now and then a 64 KiB message
    no-reply         nothing, ever
    late             the correct reply after 10 s (an undo or a choice
                     that late moves nothing)
    disconnect       the connection dropped mid-call, taken again 0.3-2 s later

On its own it emits signals nobody asked for every 0.3-1.5 s: LayoutChanged
with junk (wrong signatures, 10,000 elements) on the menus it presented and
on others, Closed for menus it never presented.

Text changes only by what the run chose. A chosen item's command reaches
the app (PerformCommand) and an Undo or Redo carries the step's payloads
only while the run holds a window open (`window open`): a choice or an
undo that arrives outside one is answered but moves no text. What it calls
on its own (`poke`) is a command that changes no text (copy, select-all,
unknown names), a changing one with invalid arguments, or one for a context
that does not exist; every call is logged, `mutating` where a valid call
would change text.

Commands, one a line on stdin, each acknowledged in the log
({"event": "ack", "command": ...}):

    mode cycle|random|correct|only:BEHAVIOUR   how the next calls are answered
    window open|close                          see above
    poke | poke undo                           calls the app's Client object
    quit

The log (--log, JSON lines) holds every call, reply and signal: what the
run checks against.
"""

import argparse
import json
import os
import random
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

BUS_NAME = "org.menubus.MenuBus1"
MANAGER_PATH = "/org/menubus/MenuBus1"
MANAGER_IFACE = "org.menubus.MenuBus1"
MENU_IFACE = "org.menubus.MenuBus1.Menu"
CLIENT_IFACE = "org.menubus.MenuBus1.Client"
ERROR = "org.menubus.MenuBus1.Error."

BEHAVIOURS = ["correct", "wrong-signature", "huge", "long-titles", "bad-utf8", "error", "no-reply", "late",
              "disconnect"]
# Standard commands that change a field's text when they reach it.
MUTATING = {"cut", "paste", "delete", "replace-selection", "undo", "redo", "paste-and-match-style"}
LATE_S = 10
HUGE = 10000
LONG = 65536
BAD_UTF8 = b"\xff\xfe\xc3(\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc"

JUNK_BODIES = [
    ("(s)", lambda: GLib.Variant("(s)", ("junk",))),
    ("(u)", lambda: GLib.Variant("(u)", (7,))),
    ("()", lambda: None),
    ("(uas)", lambda: GLib.Variant("(uas)", (1, ["a", "b"]))),
    ("(a(ssa{sv}))", lambda: GLib.Variant("(a(ssa{sv}))", ([("x", "", {})],))),
    ("(ua(ss))", lambda: GLib.Variant("(ua(ss))", (1, [("x", "")]))),
    ("(ua(ssv))", lambda: GLib.Variant("(ua(ssv))", (1, [("x", "", GLib.Variant("s", "y"))]))),
    ("(sa(ssa{sv}))", lambda: GLib.Variant("(sa(ssa{sv}))", ("x", [("a", "", {})]))),
    ("(o)", lambda: GLib.Variant("(o)", ("/junk",))),
    ("(ua(ssa{sv})u)", lambda: GLib.Variant("(ua(ssa{sv})u)", (1, [("x", "", {})], 2))),
    ("(v)", lambda: GLib.Variant("(v)", (GLib.Variant("u", 1),))),
    ("(sas)", lambda: GLib.Variant("(sas)", ("x", ["i"]))),
    ("(say)", lambda: GLib.Variant("(say)", ("x", b"i\x00"))),
    ("(ua{sv})", lambda: GLib.Variant("(ua{sv})", (1, {"title": GLib.Variant("s", "t")}))),
    ("(ay)", lambda: GLib.Variant("(ay)", (BAD_UTF8,))),
]

HERE = os.path.dirname(os.path.abspath(__file__))
DBUS_XML = os.path.join(HERE, "..", "..", "dbus")


def interface(file_name, name):
    with open(os.path.join(DBUS_XML, file_name)) as xml:
        return Gio.DBusNodeInfo.new_for_xml(xml.read()).lookup_interface(name)


def out_signature(iface, method):
    info = iface.lookup_method(method)
    if info is None:
        return "()"
    return "(" + "".join(arg.signature for arg in info.out_args) + ")"


def item(item_id, parent, **props):
    values = {}
    for key, value in props.items():
        key = key.replace("_", "-")
        if isinstance(value, GLib.Variant):
            values[key] = value
        elif isinstance(value, list):
            values[key] = GLib.Variant("as", value)
        elif isinstance(value, bool):
            values[key] = GLib.Variant("b", value)
        else:
            values[key] = GLib.Variant("s", value)
    return (item_id, parent, values)


def items_variant(items):
    return GLib.Variant("a(ssa{sv})", items)


class Menu:
    def __init__(self, number, owner, context_id, items):
        self.path = "%s/menu/%d" % (MANAGER_PATH, number)
        self.owner = owner
        self.context_id = context_id
        self.items = items
        self.registration = 0
        self.revision = 1


class Fake:
    def __init__(self, address, seed, mode, log_path):
        self.address = address
        self.rng = random.Random(seed)
        self.mode = mode
        self.counters = {}
        self.log_file = open(log_path, "a", buffering=1)
        self.manager_iface = interface("org.menubus.MenuBus1.xml", MANAGER_IFACE)
        self.menu_iface = interface("org.menubus.MenuBus1.Menu.xml", MENU_IFACE)
        self.client_iface = interface("org.menubus.MenuBus1.Client.xml", CLIENT_IFACE)
        self.conn = None
        self.generation = 0
        self.apps = {}       # unique name -> {"client": path, "app_id": s}
        self.contexts = {}   # (unique name, context id) -> {"context": dict, "selection": dict}
        self.menus = {}      # path -> Menu
        self.presented = []  # every path ever presented (for signals after they close)
        self.next_menu = 1
        self.revision = 1
        self.undo = {}       # document -> {"steps": [...], "at": n}
        self.window = False
        self.name_taken = False
        self.loop = GLib.MainLoop()

    # MARK: the log

    def log(self, event, **fields):
        fields.update({"t": round(time.time(), 4), "event": event})
        self.log_file.write(json.dumps(fields, default=str) + "\n")

    # MARK: the connection

    def connect(self):
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        conn = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)
        conn.set_exit_on_close(False)
        # DO_NOT_QUEUE | REPLACE_EXISTING
        reply = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                               GLib.Variant("(su)", (BUS_NAME, 6)), GLib.VariantType("(u)"),
                               Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        if reply not in (1, 4):  # primary owner, already owner
            # Another process owns the name (a real menubusd started by
            # activation): what follows would not be this fake's doing.
            self.log("name-taken", request_name=reply)
            conn.close_sync(None)
            self.name_taken = True
            self.loop.quit()
            return
        conn.register_object(MANAGER_PATH, self.manager_iface, self.on_manager_call, None, None)
        self.conn = conn
        self.generation += 1
        self.menus = {}
        self.log("connected", unique=conn.get_unique_name(), request_name=reply, generation=self.generation)

    def drop(self):
        conn, self.conn = self.conn, None
        self.menus = {}
        if conn is not None:
            conn.close_sync(None)
        delay = self.rng.uniform(0.3, 2.0)
        self.log("disconnected", back_in_s=round(delay, 2))
        GLib.timeout_add(int(delay * 1000), self.reconnect)

    def reconnect(self):
        try:
            self.connect()
        except GLib.Error as error:
            self.log("reconnect-failed", error=str(error))
            GLib.timeout_add(500, self.reconnect)
        return False

    # MARK: choosing a behaviour

    def behaviour(self, method):
        if self.mode == "cycle":
            # Each method goes round all behaviours on its own, whatever
            # the order of the calls.
            count = self.counters.get(method, 0)
            self.counters[method] = count + 1
            choice = BEHAVIOURS[count % len(BEHAVIOURS)]
        elif self.mode == "random":
            choice = self.rng.choice(BEHAVIOURS)
        elif self.mode.startswith("only:"):
            choice = self.mode[len("only:"):]
        else:
            choice = "correct"
        return choice

    # MARK: replies

    def send_reply(self, message, body, generation, note):
        if self.conn is None or generation != self.generation:
            self.log("reply-dropped", serial=message.get_serial(), note=note, why="connection gone")
            return False
        reply = Gio.DBusMessage.new_method_reply(message)
        if body is not None:
            reply.set_body(body)
        try:
            self.conn.send_message(reply, Gio.DBusSendMessageFlags.NONE)
        except GLib.Error as error:
            self.log("reply-failed", serial=message.get_serial(), error=str(error))
            return False
        self.log("reply", serial=message.get_serial(), note=note,
                 signature=body.get_type_string() if body is not None else "()",
                 bytes=len(body.get_data_as_bytes().get_data()) if body is not None else 0)
        return True

    def send_error(self, message, name, text, generation):
        if self.conn is None or generation != self.generation:
            return
        self.conn.send_message(Gio.DBusMessage.new_method_error_literal(message, name, text),
                               Gio.DBusSendMessageFlags.NONE)
        self.log("error-reply", serial=message.get_serial(), name=name, message_bytes=len(text))

    def on_manager_call(self, conn, sender, path, iface, method, params, invocation):
        self.dispatch(conn, sender, path, method, params, invocation, self.manager_iface)

    def on_menu_call(self, conn, sender, path, iface, method, params, invocation):
        self.dispatch(conn, sender, path, method, params, invocation, self.menu_iface)

    def dispatch(self, conn, sender, path, method, params, invocation, iface):
        message = invocation.get_message()
        if self.conn is None or conn.get_unique_name() != self.conn.get_unique_name():
            # Queued before the connection was dropped: nobody can be answered.
            self.log("call-after-drop", serial=message.get_serial(), method=method)
            return
        behaviour = self.behaviour(method)
        generation = self.generation
        self.log("call", serial=message.get_serial(), sender=sender, path=path, method=method,
                 args=summary(params), behaviour=behaviour, window=self.window)
        # What every call changes, whatever is answered: the state a real
        # daemon keeps (apps, contexts, undo steps).
        self.observe(sender, path, method, params)
        correct_sig = out_signature(iface, method)
        if behaviour == "no-reply":
            return
        if behaviour == "disconnect":
            self.drop()
            return
        if behaviour == "error":
            self.send_error(message, *self.junk_error(), generation)
            return
        if behaviour == "wrong-signature":
            bodies = [body for sig, body in JUNK_BODIES if sig != correct_sig]
            self.send_reply(message, self.rng.choice(bodies)(), generation, "wrong-signature")
            return
        if behaviour == "late":
            # Computed later, without effect on the text.
            GLib.timeout_add(LATE_S * 1000, self.late_reply, message, sender, path, method, params, generation,
                             correct_sig)
            return
        if behaviour in ("huge", "long-titles", "bad-utf8"):
            body = self.malformed(behaviour, sender, path, method, params, correct_sig)
            if body is not None:
                self.send_reply(message, body, generation, behaviour)
            return
        self.correct(message, sender, path, method, params, generation, effects=True)

    def late_reply(self, message, sender, path, method, params, generation, correct_sig):
        if method in ("Undo", "Redo"):
            self.send_error(message, ERROR + ("NothingToUndo" if method == "Undo" else "NothingToRedo"),
                            "late: no step moves", generation)
        else:
            self.correct(message, sender, path, method, params, generation, effects=False)
        return False

    def junk_error(self):
        names = [ERROR + name for name in ("NoSuchContext", "NotRegistered", "NothingToShow", "AccessDenied",
                                           "LimitExceeded", "NoSuchItem", "NothingToUndo", "NoSuchDocument",
                                           "StorageFailed", "UndoGroupOpen")]
        names += ["org.freedesktop.DBus.Error.Failed", "org.freedesktop.DBus.Error.InvalidArgs",
                  "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.NoReply",
                  "org.example.Hostile.Error.Weird"]
        text = "hostile" if self.rng.random() < 0.8 else "x" * LONG
        return self.rng.choice(names), text

    # MARK: what a real daemon would keep

    def observe(self, sender, path, method, params):
        if path != MANAGER_PATH:
            return
        args = params.unpack()
        if method == "Register":
            self.apps[sender] = {"app_id": args[0], "client": args[1]}
        elif method == "PublishContext":
            entry = self.contexts.setdefault((sender, args[0]), {"selection": {}})
            entry["context"] = args[1]
        elif method == "UpdateSelection":
            self.contexts.setdefault((sender, args[0]), {"context": {}})["selection"] = args[1]
        elif method == "RemoveContext":
            self.contexts.pop((sender, args[0]), None)
        elif method == "RegisterUndo":
            document, name, undo, redo, options = args
            state = self.undo.setdefault(document, {"steps": [], "at": 0})
            del state["steps"][state["at"]:]
            key = options.get("merge-key")
            top = state["steps"][-1] if state["steps"] else None
            if key and top is not None and top["key"] == key:
                top["undo"].insert(0, bytes(undo))
                top["redo"].append(bytes(redo))
            else:
                state["steps"].append({"name": name, "undo": [bytes(undo)], "redo": [bytes(redo)], "key": key})
            state["at"] = len(state["steps"])
        elif method == "ClearUndo":
            self.undo.pop(args[0], None)

    # MARK: correct answers

    def compose(self, sender, context_id, omit=()):
        entry = self.contexts.get((sender, context_id), {"context": {}, "selection": {}})
        context, selection = entry.get("context", {}), entry.get("selection", {})
        supported = set(context.get("supported-commands", []))
        editable = bool(context.get("editable", False))
        ranged = selection.get("kind") in ("range", "all")
        items = []
        sections = [
            [("undo", "MB Undo", "<Control>z"), ("redo", "MB Redo", "<Control><Shift>z")],
            [("cut", "MB Cut", None), ("copy", "MB Copy", None), ("paste", "MB Paste", None),
             ("delete", "MB Delete", None), ("select-all", "MB Select All", None)],
        ]
        wanted = {"undo": editable, "redo": editable, "cut": editable and ranged, "copy": ranged,
                  "paste": editable, "delete": editable and ranged, "select-all": True}
        for number, section in enumerate(sections):
            entries = [(command, title, keys) for command, title, keys in section
                       if command in supported and wanted[command] and command not in omit]
            if not entries:
                continue
            section_id = "menubus:section:%d" % number
            items.append(item(section_id, "", type="menu", options=["inline"]))
            for command, title, keys in entries:
                extra = {"shortcut": keys} if keys else {}
                items.append(item("menubus:" + command, section_id, title=title, command=command, **extra))
        if editable and ranged and "replace-selection" in supported:
            items.append(item("menubus:provider:org.menubus.TextTransforms.Uppercase", "", title="MB Make Uppercase"))
        return items

    def correct(self, message, sender, path, method, params, generation, effects):
        args = params.unpack()
        body = None
        if path == MANAGER_PATH:
            if method in ("PublishContext", "UpdateItems", "RegisterUndo"):
                self.revision += 1
                body = GLib.Variant("(u)", (self.revision,))
            elif method in ("GetEditMenu", "GetContextMenu"):
                omit = args[2].get("omit-commands", [])
                body = GLib.Variant("(ua(ssa{sv}))", (self.revision, self.compose(sender, args[1], omit)))
            elif method == "PresentMenu":
                omit = args[3].get("omit-commands", [])
                menu = self.present(sender, args[1], self.compose(sender, args[1], omit))
                if menu is None:
                    return
                body = GLib.Variant("(o)", (menu.path,))
            elif method in ("Undo", "Redo"):
                self.move_undo(message, method, args[0], generation, effects)
                return
            elif method == "GetUndoState":
                body = GLib.Variant("(a{sv})", ({},))
        else:
            menu = self.menus.get(path)
            if menu is None:
                self.send_error(message, "org.freedesktop.DBus.Error.UnknownObject", "closed", generation)
                return
            if method == "GetLayout":
                body = GLib.Variant("(ua(ssa{sv}))", (menu.revision, menu.items))
            elif method == "Activate":
                if self.send_reply(message, None, generation, "correct"):
                    self.activate(menu, args[0], effects)
                return
            elif method == "Dismiss":
                self.send_reply(message, None, generation, "correct")
                self.close_menu(menu)
                return
        self.send_reply(message, body, generation, "correct" if effects else "late")

    def present(self, owner, context_id, items, register=True):
        if self.conn is None:
            return None
        menu = Menu(self.next_menu, owner, context_id, items)
        self.next_menu += 1
        if register:
            menu.registration = self.conn.register_object(menu.path, self.menu_iface, self.on_menu_call, None, None)
            self.menus[menu.path] = menu
        self.presented.append(menu.path)
        self.log("presented", path=menu.path, context=context_id, items=len(items))
        # menubusd tells the owner (optional for it; no reply asked).
        self.call_client(owner, "MenuPresented", GLib.Variant("(sso)", (context_id, "edit", menu.path)), note="presented")
        return menu

    def close_menu(self, menu):
        if self.menus.pop(menu.path, None) is None:
            return
        if self.conn is not None and menu.registration:
            self.conn.unregister_object(menu.registration)
            self.emit(menu.path, "Closed", None, note="closed")

    def activate(self, menu, item_id, effects):
        command = item_id[len("menubus:"):] if item_id.startswith("menubus:") else None
        perform = None
        if item_id == "menubus:provider:org.menubus.TextTransforms.Uppercase":
            text = self.contexts.get((menu.owner, menu.context_id), {}).get("selection", {}).get("text")
            if text:
                perform = ("replace-selection", {"text": GLib.Variant("s", text.upper()),
                                                 "undo-name": GLib.Variant("s", "Make Uppercase")})
        elif command in ("undo", "redo", "cut", "copy", "paste", "delete", "select-all"):
            perform = (command, {})
        self.close_menu(menu)
        if perform is None:
            self.log("activated", path=menu.path, item=item_id[:80], performs=None)
            return
        if not (effects and self.window):
            self.log("activated", path=menu.path, item=item_id[:80], performs=None, why="outside a window")
            return
        self.log("activated", path=menu.path, item=item_id[:80], performs=perform[0])
        self.call_client(menu.owner, "PerformCommand",
                         GLib.Variant("(ssa{sv})", (menu.context_id, perform[0], perform[1])),
                         note="chosen", chosen=True, command=perform[0],
                         text=perform[1].get("text").unpack() if "text" in perform[1] else None)

    def move_undo(self, message, method, document, generation, effects):
        state = self.undo.get(document)
        if state is None:
            self.send_error(message, ERROR + "NoSuchDocument", "documentId", generation)
            return
        if not (effects and self.window):
            self.send_error(message, ERROR + ("NothingToUndo" if method == "Undo" else "NothingToRedo"),
                            "outside a window: no step moves", generation)
            return
        if method == "Undo":
            if state["at"] == 0:
                self.send_error(message, ERROR + "NothingToUndo", "nothing", generation)
                return
            state["at"] -= 1
            step = state["steps"][state["at"]]
            payloads = step["undo"]
        else:
            if state["at"] >= len(state["steps"]):
                self.send_error(message, ERROR + "NothingToRedo", "nothing", generation)
                return
            step = state["steps"][state["at"]]
            state["at"] += 1
            payloads = step["redo"]
        # The step moves only when the app gets it: what the run applies to its model.
        if not self.send_reply(message, GLib.Variant("(saay)", (step["name"], payloads)), generation, "correct"):
            state["at"] += 1 if method == "Undo" else -1
            return
        self.log("undo-moved", method=method, document=document, payloads=[p.hex() for p in payloads])

    # MARK: malformed answers

    def malformed(self, behaviour, sender, path, method, params, correct_sig):
        if correct_sig in ("(ua(ssa{sv}))",):
            return GLib.Variant(correct_sig, (self.revision, self.bad_layout(behaviour)))
        if method == "PresentMenu":
            if behaviour == "long-titles":
                return GLib.Variant("(o)", ("/" + "/".join(["x" * 200] * 320),))
            args = params.unpack()
            menu = self.present(sender, args[1], self.bad_layout(behaviour))
            if menu is None:
                return None
            # Its layout follows in a signal too.
            GLib.timeout_add(self.rng.randint(5, 120), self.emit_layout, menu.path, behaviour)
            return GLib.Variant("(o)", (menu.path,))
        if method in ("Undo", "Redo"):
            if behaviour == "huge":
                payloads = [b""] * (HUGE - 1) + [b"x" + BAD_UTF8]
                return GLib.Variant("(saay)", ("Typing", payloads))
            if behaviour == "long-titles":
                return GLib.Variant("(saay)", ("T" * LONG, []))
            # An insertion of invalid UTF-8, and one whose length runs past the payload.
            bad = b"i" + (0).to_bytes(4, "little") + len(BAD_UTF8).to_bytes(4, "little") + BAD_UTF8
            over = b"i" + (0).to_bytes(4, "little") + (1 << 30).to_bytes(4, "little") + b"abc"
            return GLib.Variant("(saay)", ("Typing", [self.rng.choice([bad, over])]))
        if correct_sig == "(u)":
            return GLib.Variant("(u)", (0xFFFFFFFF,))
        if behaviour == "huge":
            return GLib.Variant("(as)", (["x"] * HUGE,))
        if behaviour == "long-titles":
            return GLib.Variant("(s)", ("L" * LONG,))
        return GLib.Variant("(ay)", (BAD_UTF8,))

    def bad_layout(self, behaviour):
        if behaviour == "long-titles":
            long_title = self.rng.choice(["W" * LONG, "\u0416" * (LONG // 2), "\U0001F600" * (LONG // 4)])
            return [
                item("menubus:long-1", "", title=long_title),
                item("L" * LONG, "", title="MB Long Id"),
                item("menubus:long-2", "", title="MB Long Shortcut", shortcut="<Control><Shift><Alt>" * 3000 + "x"),
                item("menubus:long-3", "", title="MB Long Icon", icon="i" * LONG, subtitle="s" * LONG),
                item("menubus:long-4", "", title="MB Long Command", command="c" * LONG),
                item("menubus:long-5", "", type="menu", title="M" * LONG),
                item("menubus:long-6", "menubus:long-5", title="MB Inside"),
            ]
        if behaviour == "bad-utf8":
            raw = GLib.Variant("ay", BAD_UTF8)
            return [
                ("menubus:bytes-1", "", {"title": raw}),
                ("menubus:bytes-2", "", {"title": GLib.Variant("s", "MB Bytes"), "command": raw, "shortcut": raw,
                                         "attributes": raw, "state": raw, "icon": raw, "subtitle": raw}),
                ("menubus:bytes-3", "", {"type": raw, "title": GLib.Variant("s", "MB Bytes Type"), "options": raw}),
                ("menubus:bytes-4", "", {"type": GLib.Variant("s", "menu"), "title": raw,
                                         "options": GLib.Variant("ay", b"inline")}),
                ("menubus:bytes-5", "menubus:bytes-4", {"title": GLib.Variant("as", ["a", "b"])}),
            ]
        shape = self.rng.choice(["flat", "nested", "orphans", "self-parent", "sections"])
        self.log("huge-layout", shape=shape)
        if shape == "flat":
            return [item("h%d" % i, "", title="Hostile %d" % i) for i in range(HUGE)]
        if shape == "nested":
            result = [item("n0", "", type="menu", title="Hostile Deep")]
            result += [item("n%d" % i, "n%d" % (i - 1), type="menu", title="Deep %d" % i) for i in range(1, HUGE - 1)]
            result.append(item("leaf", "n%d" % (HUGE - 2), title="Hostile Leaf"))
            return result
        if shape == "orphans":
            result = [item("o%d" % i, "p%d" % (i + 1), title="Orphan %d" % i) for i in range(HUGE)]
            self.rng.shuffle(result)
            return result
        if shape == "self-parent":
            # A root menu whose id is the root's ("") and a menu that is its own parent.
            result = [item("", "", type="menu", title="Hostile Loop"),
                      item("self", "self", type="menu", title="Hostile Self"),
                      item("a", "b", type="menu", title="A"), item("b", "a", type="menu", title="B")]
            result += [item("d%d" % (i % 50), "", title="Hostile Duplicate %d" % i) for i in range(HUGE - 4)]
            return result
        result = []
        for s in range(100):
            result.append(item("s%d" % s, "", type="menu", options=["inline"]))
            result += [item("s%d-%d" % (s, i), "s%d" % s, title="Hostile %d.%d" % (s, i)) for i in range(99)]
        return result

    # MARK: signals and calls of its own

    def emit(self, path, name, body, destination=None, note=""):
        if self.conn is None:
            return
        try:
            self.conn.emit_signal(destination, path, MENU_IFACE, name, body)
            self.log("signal", path=path[:120], name=name, signature=body.get_type_string() if body else "()",
                     note=note)
        except GLib.Error as error:
            self.log("signal-failed", name=name, error=str(error))

    def emit_layout(self, path, behaviour):
        if path in self.menus:
            menu = self.menus[path]
            menu.revision += 1
            self.emit(path, "LayoutChanged", GLib.Variant("(ua(ssa{sv}))", (menu.revision, self.bad_layout(behaviour))),
                      note=behaviour)
        return False

    def junk_signal(self):
        """Every 0.3-1.5 s: a signal nobody asked for."""
        live = list(self.menus)
        roll = self.rng.random()
        if live and roll < 0.45:
            path = self.rng.choice(live)
            sig, body = self.rng.choice(JUNK_BODIES + [("(ua(ssa{sv}))", None)])
            if body is None:
                self.emit_layout(path, self.rng.choice(["huge", "long-titles", "bad-utf8"]))
            else:
                self.emit(path, "LayoutChanged", body(), note="junk")
        elif live and roll < 0.55:
            path = self.rng.choice(live)
            self.emit(path, "Closed", GLib.Variant("(s)", ("junk",)), note="closed with junk")
        elif roll < 0.8:
            path = "%s/menu/%d" % (MANAGER_PATH, self.rng.choice([0, 99999, self.next_menu, self.next_menu + 1]))
            self.emit(path, "Closed", None, note="never presented")
        elif self.presented:
            # A menu it presented once and closed.
            path = self.rng.choice(self.presented[-20:])
            self.emit(path, self.rng.choice(["Closed", "LayoutChanged"]), None, note="after it closed")
        GLib.timeout_add(int(self.rng.uniform(0.3, 1.5) * 1000), self.junk_signal)
        return False

    def call_client(self, owner, method, body, note="", **fields):
        app = self.apps.get(owner)
        if self.conn is None or app is None:
            self.log("client-call-skipped", method=method, why="no connection or app")
            return
        self.log("client-call", method=method, owner=owner, path=app["client"], args=summary(body), note=note,
                 mutating=(method == "PerformCommand" and body.get_type_string() == "(ssa{sv})"
                           and body.get_child_value(1).get_string() in MUTATING), **fields)
        conn = self.conn

        def done(source, result):
            try:
                reply = conn.call_finish(result)
                self.log("client-reply", method=method, note=note, reply=summary(reply), **fields)
            except GLib.Error as error:
                self.log("client-error", method=method, note=note, error=str(error)[:300], **fields)

        conn.call(owner, app["client"], CLIENT_IFACE, method, body, None, Gio.DBusCallFlags.NO_AUTO_START, 5000,
                  None, done)

    def poke(self, undo):
        """Calls of the app's Client object none of which may change its
        text; with `undo`, Undo and Redo of a real context too (for a shim
        whose undo goes through the daemon, where an Undo outside a window
        moves nothing)."""
        owners = [owner for owner in self.apps]
        if not owners:
            self.log("poke-skipped", why="no app registered")
            return
        owner = self.rng.choice(owners)
        real = [context for (app, context) in self.contexts if app == owner] or ["none"]
        unknown = self.rng.choice(["gtk3-999999", "", "x" * 4096, "qt-0", "no such context"])
        text = GLib.Variant("s", "EVIL")
        choices = [
            ("PerformCommand", GLib.Variant("(ssa{sv})", (self.rng.choice(real), self.rng.choice(
                ["copy", "select-all", "lookup", "translate", "search-web", "share", "", "no-such-command",
                 "c" * LONG]), {}))),
            ("PerformCommand", GLib.Variant("(ssa{sv})", (self.rng.choice(real), "replace-selection",
                                                          self.rng.choice([{}, {"text": GLib.Variant("ay", b"EVIL")},
                                                                           {"text": GLib.Variant("u", 5)}])))),
            ("PerformCommand", GLib.Variant("(ssa{sv})", (unknown, self.rng.choice(
                ["cut", "delete", "paste", "undo"]), {}))),
            ("PerformCommand", GLib.Variant("(ssa{sv})", (unknown, "replace-selection", {"text": text}))),
            ("PerformCommand", GLib.Variant("(s)", (self.rng.choice(real),))),
            ("PerformCommand", GLib.Variant("(ssu)", (self.rng.choice(real), "cut", 1))),
            ("GetSelectedText", GLib.Variant("(s)", (self.rng.choice(real + [unknown]),))),
            ("GetSelectedText", GLib.Variant("()", ())),
            ("MenuPresented", GLib.Variant("(sso)", (self.rng.choice(real), "edit",
                                                     "%s/menu/%d" % (MANAGER_PATH, self.rng.randint(0, 1 << 20))))),
            ("MenuPresented", GLib.Variant("(sso)", (unknown, "context", "/"))),
            ("ActionInvoked", GLib.Variant("(ssa{sv})", (self.rng.choice(real), "no-such-item", {}))),
            # A menu shown at the fake's will: it changes no text.
            ("ShowEditMenu", GLib.Variant("(sa{sv})", (self.rng.choice(real), {}))),
            ("ShowEditMenu", GLib.Variant("(sa{sv})", (self.rng.choice(real), {"timestamp": GLib.Variant("s", "x")}))),
            ("ShowEditMenu", GLib.Variant("(sa{sv})", (unknown, {}))),
            ("ShowEditMenu", GLib.Variant("(s)", (self.rng.choice(real),))),
            ("ProvideElements", GLib.Variant("(ss)", (self.rng.choice(real), "deferred"))),
        ]
        if undo:
            choices.append(("PerformCommand", GLib.Variant("(ssa{sv})", (
                self.rng.choice(real), self.rng.choice(["undo", "redo"]), {}))))
        for _ in range(self.rng.randint(1, 3)):
            method, body = self.rng.choice(choices)
            self.call_client(owner, method, body, note="poke")

    # MARK: commands

    def on_stdin(self, channel, condition):
        line = sys.stdin.readline()
        if not line:
            self.loop.quit()
            return False
        command = line.strip()
        if command.startswith("mode "):
            self.mode = command[len("mode "):]
        elif command == "window open":
            self.window = True
        elif command == "window close":
            self.window = False
        elif command in ("poke", "poke undo"):
            self.poke(command == "poke undo")
        elif command == "quit":
            self.log("ack", command=command)
            self.loop.quit()
            return False
        self.log("ack", command=command)
        return True

    def run(self):
        self.connect()
        if self.name_taken:
            return
        GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT,
                          GLib.IOCondition.IN | GLib.IOCondition.HUP, self.on_stdin)
        GLib.timeout_add(int(self.rng.uniform(0.3, 1.5) * 1000), self.junk_signal)
        self.loop.run()


def summary(value):
    """A call's arguments for the log, long strings cut."""
    if value is None:
        return None
    text = str(value)
    return text if len(text) <= 300 else text[:300] + "...(%d chars)" % len(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", required=True, help="where the JSON lines go")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", default="cycle")
    options = parser.parse_args()
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not address:
        print("fake-menubusd: no DBUS_SESSION_BUS_ADDRESS", file=sys.stderr)
        return 2
    fake = Fake(address, options.seed, options.mode, options.log)
    fake.run()
    return 3 if fake.name_taken else 0


if __name__ == "__main__":
    sys.exit(main())
