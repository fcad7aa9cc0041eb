#!/usr/bin/python3
"""A text editor's side of MenuBus, in Python with PyGObject's Gio.

It registers with menubusd, publishes one text field, follows its selection,
keeps its undo history in menubusd, and handles the commands chosen in its
menus: Copy, Undo and the app's own "Insert Date". It watches the name
org.menubus.MenuBus1: when menubusd restarts (a crash, an upgrade,
`menubusd --replace`), it registers and publishes again; its undo history
is kept by menubusd's journal.

    /usr/bin/python3 examples/python/editor.py          # serve until Ctrl-C
    /usr/bin/python3 examples/python/editor.py --demo   # play a short scripted session and exit

Needs Debian's python3-gi (it imports gi from the system Python).
"""

import sys

from gi.repository import Gio, GLib

BUS_NAME = "org.menubus.MenuBus1"
MANAGER = "/org/menubus/MenuBus1"
CLIENT_PATH = "/org/example/Editor/MenuBusClient"
APP_ID = "org.example.PyEditor"
FIELD = "body"
DOCUMENT = "notes.txt"

CLIENT_XML = """
<node>
  <interface name="org.menubus.MenuBus1.Client">
    <method name="ActionInvoked">
      <arg name="contextId" type="s" direction="in"/>
      <arg name="itemId" type="s" direction="in"/>
      <arg name="platformData" type="a{sv}" direction="in"/>
    </method>
    <method name="PerformCommand">
      <arg name="contextId" type="s" direction="in"/>
      <arg name="command" type="s" direction="in"/>
      <arg name="arguments" type="a{sv}" direction="in"/>
    </method>
    <method name="ProvideElements">
      <arg name="contextId" type="s" direction="in"/>
      <arg name="elementId" type="s" direction="in"/>
      <arg name="elements" type="a(ssa{sv})" direction="out"/>
    </method>
    <method name="GetSelectedText">
      <arg name="contextId" type="s" direction="in"/>
      <arg name="text" type="s" direction="out"/>
    </method>
  </interface>
</node>
"""


class Editor:
    def __init__(self, connection):
        self.bus = connection
        self.text = ""
        self.selection = (0, 0)  # start, length
        self.clipboard = None
        self.events = []
        self.selection_published = False
        self.daemon = None  # the unique name of the menubusd we published to

    # --- talking to menubusd -------------------------------------------------

    def call(self, member, signature, args, reply="()"):
        params = GLib.Variant(signature, args) if signature else None
        return self.bus.call_sync(BUS_NAME, MANAGER, "org.menubus.MenuBus1", member, params,
                                  GLib.VariantType(reply), Gio.DBusCallFlags.NONE, 5000, None)

    def start(self):
        info = Gio.DBusNodeInfo.new_for_xml(CLIENT_XML)
        self.bus.register_object(CLIENT_PATH, info.interfaces[0], self.on_call, None, None)
        self.register_and_publish()
        Gio.bus_watch_name_on_connection(self.bus, BUS_NAME, Gio.BusNameWatcherFlags.NONE,
                                         self.on_daemon_appeared, self.on_daemon_vanished)

    def on_daemon_appeared(self, connection, name, owner):
        """A menubusd owns the name: a new one after a restart gets everything again."""
        if self.daemon is not None and owner != self.daemon:
            self.register_and_publish()
            print(f"menubusd restarted ({owner}); registered and published {FIELD!r} again", flush=True)
        self.daemon = owner

    def on_daemon_vanished(self, connection, name):
        if self.daemon:
            print("menubusd left the bus; waiting for it to come back", flush=True)
            self.daemon = ""

    def register_and_publish(self):
        """What menubusd keeps only in memory: the registration, the context, the selection."""
        self.call("Register", "(soa{sv})", (APP_ID, CLIENT_PATH, {}))
        context = {
            "kind": GLib.Variant("s", "text"),
            "content-types": GLib.Variant("as", ["text/plain"]),
            "editable": GLib.Variant("b", True),
            "has-content": GLib.Variant("b", bool(self.text)),
            "document": GLib.Variant("s", DOCUMENT),
            "title": GLib.Variant("s", "Notes"),
        }
        own_items = [("insert-date", "", {"title": GLib.Variant("s", "Insert Date"),
                                           "icon": GLib.Variant("s", "x-office-calendar")})]
        self.call("PublishContext", "(sa{sv}a(ssa{sv}))", (FIELD, context, own_items), "(u)")
        if self.selection_published:
            self.publish_selection()

    def publish_selection(self):
        start, length = self.selection
        selection = {
            "kind": GLib.Variant("s", "range" if length else "caret"),
            "length": GLib.Variant("u", length),
            "text": GLib.Variant("s", self.text[start:start + length]),
            "pasteboard-types": GLib.Variant("as", ["text/plain"] if self.clipboard else []),
        }
        self.call("UpdateSelection", "(sa{sv})", (FIELD, selection))
        self.selection_published = True

    def type_text(self, typed):
        """Typing: the text changes and one undo step per keystroke, merged by menubusd."""
        before = self.text
        self.text += typed
        self.selection = (len(self.text), 0)
        self.call("RegisterUndo", "(ssayaya{sv})",
                  (DOCUMENT, "Typing", before.encode(), self.text.encode(),
                   {"merge-key": GLib.Variant("s", "typing")}), "(u)")

    # --- callbacks from menubusd ---------------------------------------------

    def from_menubusd(self, sender):
        """Only menubusd may call the client object: any connection of the
        session can send a call to our path, so compare the sender with the
        unique name that owns org.menubus.MenuBus1 (asked again when it
        differs, since menubusd may have restarted; the name watcher, not
        this check, records the new owner and publishes again)."""
        if sender is not None and sender == self.daemon:
            return True
        try:
            owner = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetNameOwner", GLib.Variant("(s)", (BUS_NAME,)), GLib.VariantType("(s)"),
                                       Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        except GLib.Error:
            return False
        return sender == owner

    def on_call(self, connection, sender, path, interface, method, params, invocation):
        if not self.from_menubusd(sender):
            invocation.return_dbus_error("org.freedesktop.DBus.Error.AccessDenied",
                                         "only menubusd may call this object")
            return
        if method == "PerformCommand":
            context_id, command, arguments = params.unpack()
            self.events.append(command)
            try:
                self.perform(command, arguments)
            except GLib.Error as error:
                print(f"{command} failed: {error.message}")
            invocation.return_value(None)
        elif method == "ActionInvoked":
            context_id, item_id, _ = params.unpack()
            self.events.append(item_id)
            if item_id == "insert-date":
                self.text += GLib.DateTime.new_now_local().format("%Y-%m-%d")
            invocation.return_value(None)
        elif method == "GetSelectedText":
            start, length = self.selection
            invocation.return_value(GLib.Variant("(s)", (self.text[start:start + length],)))
        else:
            invocation.return_dbus_error("org.menubus.MenuBus1.Error.NoSuchItem", "no deferred elements here")

    def perform(self, command, arguments):
        start, length = self.selection
        if command == "copy":
            self.clipboard = self.text[start:start + length]
            print(f"copied {self.clipboard!r}")
        elif command == "undo":
            # The app pulls the step itself and applies the payloads, newest first.
            name, payloads = self.call("Undo", "(s)", (DOCUMENT,), "(saay)").unpack()
            if payloads:
                self.text = bytes(payloads[-1]).decode()
            print(f"undid {name!r}: text is now {self.text!r}")
        elif command == "replace-selection":
            # A provider's result (Make Uppercase, Translate): one undo step,
            # named as the menu item was, so the next menu offers "Undo Make Uppercase".
            replacement = arguments.get("text", "")
            before = self.text
            self.text = self.text[:start] + replacement + self.text[start + length:]
            self.selection = (start, len(replacement))
            self.call("RegisterUndo", "(ssayaya{sv})",
                      (DOCUMENT, arguments.get("undo-name") or "Replace", before.encode(), self.text.encode(), {}), "(u)")
            self.publish_selection()
            print(f"replaced the selection with {replacement!r}")
        else:
            print(f"command {command} is not handled by this example")


def edit_menu_ids(editor, menu_path):
    reply = editor.bus.call_sync(BUS_NAME, menu_path, "org.menubus.MenuBus1.Menu", "GetLayout", None,
                                 GLib.VariantType("(ua(ssa{sv}))"), Gio.DBusCallFlags.NONE, 5000, None)
    return [element[0] for element in reply.unpack()[1]]


def edit_menu_title(editor, item):
    """The title of one item of our edit menu as menubusd composes it now."""
    revision, elements = editor.call("GetEditMenu", "(ssa{sv})", ("", FIELD, {}), "(ua(ssa{sv}))").unpack()
    return next((props.get("title") for ident, _, props in elements if ident == item), None)


def present_and_choose(editor, loop, item, expected_event):
    """Present our own edit menu, choose an item, and wait for the command to come back."""
    (path,) = editor.call("PresentMenu", "(sssa{sv})", ("", FIELD, "edit", {}), "(o)").unpack()
    ids = edit_menu_ids(editor, path)
    print(f"edit menu: {', '.join(i for i in ids if not i.startswith('menubus:section'))}")
    if item not in ids:
        raise SystemExit(f"{item} is not in the edit menu")
    editor.bus.call_sync(BUS_NAME, path, "org.menubus.MenuBus1.Menu", "Activate",
                         GLib.Variant("(sa{sv})", (item, {})), None, Gio.DBusCallFlags.NONE, 5000, None)
    deadline = GLib.get_monotonic_time() + 5_000_000
    while expected_event not in editor.events and GLib.get_monotonic_time() < deadline:
        loop.get_context().iteration(True)
    if expected_event not in editor.events:
        raise SystemExit(f"{expected_event} did not arrive")


def main():
    demo = "--demo" in sys.argv[1:]
    # --demo-provider ITEM: type, select, choose a provider's item (such as
    # menubus:provider:org.menubus.TextTransforms.Uppercase) and show the undo step it left.
    provider_item = sys.argv[sys.argv.index("--demo-provider") + 1] if "--demo-provider" in sys.argv[1:-1] else None
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    editor = Editor(connection)
    loop = GLib.MainLoop()
    editor.start()
    if provider_item:
        editor.type_text("hello")
        editor.selection = (0, 5)
        editor.publish_selection()
        present_and_choose(editor, loop, provider_item, "replace-selection")
        print(f"text is now {editor.text!r}; the edit menu offers {edit_menu_title(editor, 'menubus:undo')!r}")
        present_and_choose(editor, loop, "menubus:undo", "undo")
        print("done")
        return
    if not demo:
        print(f"{APP_ID} is serving its text field; Ctrl-C stops", flush=True)
        loop.run()
        return
    for letter in "hello":
        editor.type_text(letter)
    state = editor.call("GetUndoState", "(s)", (DOCUMENT,), "(a{sv})").unpack()[0]
    print(f"typed {editor.text!r}; menubusd offers {state['undo-title']!r} ({state['undo-count']} step)")
    editor.selection = (0, 5)
    editor.publish_selection()
    present_and_choose(editor, loop, "menubus:copy", "copy")
    present_and_choose(editor, loop, "menubus:undo", "undo")
    print("done")


if __name__ == "__main__":
    main()
