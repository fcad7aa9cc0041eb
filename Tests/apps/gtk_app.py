#!/usr/bin/python3
"""Drives a real GTK 3 program (mousepad or gedit), GTK 4 program or Qt 5
program (featherpad) the way a person would,
and reads back what it shows through AT-SPI, never through anything the
MenuBus module reports.

Run under an X server (xvfb-run -a) with DBUS_SESSION_BUS_ADDRESS naming a
private session bus. It starts the accessibility bus itself
(at-spi-bus-launcher --launch-immediately: the private bus activates
nothing), checks that at-spi2-registryd came up on it, starts the program
with a fresh HOME and XDG folders, and prints one JSON line when ready:

    {"ok": true, "ready": true, "app": "mousepad", "timings": {...}}

Then it takes one command a line on stdin and answers one JSON line each
on stdout ({"ok": false, "error": "..."} when a command fails):

    focus editor | focus search      the text view, or the search bar's entry (Ctrl+F)
    type TEXT                        xdotool type into the focused widget
    clear                            empties the focused widget from the keyboard
    key KEYSYM...                    xdotool key (ctrl+z, shift+F10, Menu)
    select-word-left                 ctrl+shift+Left, answered with the selection
    open-menu [shift+F10|menu-key|right-click|auto]
                                     a popup menu's items, read once it shows
    menu                             the items of the menu showing now
    await-menu                       the items of a popup menu something else opens, once it shows
    choose NAME                      activates the item (AT-SPI action) and waits for the menu to close
    close-menu                       Escape, and waits for the menu to close
    text | selection                 the focused widget's text, or its selected text
    set-clipboard TEXT               another X client (a small GTK 3 program) takes the
                                     clipboard with TEXT, answered once it owns it
    ping                             a query the program's main loop answers, timed
    dump                             the program's accessible tree (for debugging)
    quit

With --wayland it needs no X server: it runs the program under a headless
sway of its own and types through one virtual keyboard (Tests/apps/
wayland_session.py); a right click becomes the Menu key there.

Every wait polls a condition against a deadline; none sleeps a fixed time.
Diagnostics go to stderr.
"""

import argparse
import faulthandler
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Atspi", "2.0")
gi.require_version("Gio", "2.0")
from gi.repository import Atspi, Gio, GLib  # noqa: E402

import pyatspi  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

APPS = {
    # --disable-server: no single-instance hand-over to a mousepad already
    # on the same bus (another test's).
    "mousepad": ["/usr/bin/mousepad", "--disable-server"],
    "gedit": ["/usr/bin/gedit", "--standalone"],
    # MenuBus's GTK 4 example as `make shims` builds it (MENUBUS_GTK4_EDITOR
    # names another build).
    "gtk4-editor": [os.environ.get("MENUBUS_GTK4_EDITOR")
                    or os.path.join(HERE, "..", "..", ".build", "shims", "gtk4", "gtk4-editor")],
    # GNOME's text editor (GTK 4), unmodified: MenuBus reaches it through the
    # GTK 4 IM module (GTK_PATH, GTK_IM_MODULE from the environment);
    # --standalone: no hand-over to an instance already on the bus.
    "gnome-text-editor": ["/usr/bin/gnome-text-editor", "--standalone"],
    # A Qt 5 Widgets editor: its document a QPlainTextEdit, its search
    # field (Ctrl+F) a QLineEdit. The Qt platform theme comes from the
    # environment (QT_QPA_PLATFORMTHEME, QT_PLUGIN_PATH).
    "featherpad": ["/usr/bin/featherpad", "--standalone"],
    # A Qt 6 editor QtAppTests builds (MENUBUS_QT_EDITOR names it): a
    # QPlainTextEdit, and a QLineEdit that Ctrl+F shows.
    "qt-editor": [os.environ.get("MENUBUS_QT_EDITOR") or "/nonexistent/qt-editor"],
    # KDE's editor (Qt 5, KTextEditor): its view draws its own text and
    # exposes it through Qt's accessible text interface. Started with a
    # file in the driver's HOME (without one it shows a Welcome page).
    "kwrite": ["/usr/bin/kwrite"],
    # A GTK 3 editor on Scintilla, which draws its own text and exposes it
    # through ATK (AtkText, AtkEditableText); a file of the driver's HOME,
    # no other instance, session or plugins.
    "geany": ["/usr/bin/geany", "--new-instance", "--no-session", "--no-plugins"],
}

# GTK 4 programs: drawn with cairo (Xvfb has no GL), on X11.
GTK4_APPS = {"gtk4-editor", "gnome-text-editor"}
# Editors whose view draws its own text (geany's Scintilla): no scroll pane around it.
OWN_TEXT_APPS = {"geany"}
# Qt programs: their accessibility bridge exports only when asked.
QT_APPS = {"featherpad", "qt-editor", "kwrite"}

PR_SET_PDEATHSIG = 1


def log(*parts):
    print("gtk_app:", *parts, file=sys.stderr, flush=True)


def now_ms():
    return time.monotonic() * 1000.0


def poll(condition, timeout, interval=0.01):
    """Calls condition() until it returns something truthy or timeout
    seconds pass; returns its last value. Errors count as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except GLib.Error:
            value = None
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def die_with_parent(sig=signal.SIGTERM):
    """For preexec_fn: the child gets sig when this driver dies."""
    def set_signal():
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        except OSError:
            pass
    return set_signal


class Failure(Exception):
    pass


# MARK: Reading accessibles


ROLE_NAMES = {
    pyatspi.ROLE_MENU_ITEM: "menu item",
    pyatspi.ROLE_CHECK_MENU_ITEM: "check",
    pyatspi.ROLE_RADIO_MENU_ITEM: "radio",
    pyatspi.ROLE_SEPARATOR: "separator",
    pyatspi.ROLE_MENU: "submenu",
    pyatspi.ROLE_TEAROFF_MENU_ITEM: "tearoff",
}


def children(accessible):
    result = []
    try:
        count = accessible.childCount
    except GLib.Error:
        return result
    for index in range(count):
        try:
            child = accessible.getChildAtIndex(index)
        except GLib.Error:
            continue
        if child is not None:
            result.append(child)
    return result


def has_state(accessible, state):
    try:
        return accessible.getState().contains(state)
    except GLib.Error:
        return False


def walk(accessible, depth=0, max_depth=40, skip=()):
    """Depth first, every descendant; skips the subtrees of roles in skip."""
    yield accessible
    if depth >= max_depth:
        return
    for child in children(accessible):
        try:
            role = child.getRole()
        except GLib.Error:
            continue
        if role in skip:
            yield child
            continue
        yield from walk(child, depth + 1, max_depth, skip)


def label_of(name):
    """An item's name without the padding some programs add, nor the
    shortcut Qt's standard items carry after a tab ("Cut\tCtrl+X")."""
    return name.split("\t")[0].strip()


def menu_items(menu, shown=True):
    """The items of a GtkMenu as AT-SPI gives them: name exactly as read,
    label (name without the trailing padding some programs add), role,
    sensitive, and a submenu's children. `shown` false: a Qt submenu not
    open, whose items are not VISIBLE."""
    items = []
    for child in children(menu):
        try:
            role = child.getRole()
            name = child.name or ""
        except GLib.Error:
            continue
        states = child.getState()
        if shown and not states.contains(pyatspi.STATE_VISIBLE):
            continue
        item = {
            "name": name,
            "label": label_of(name),
            "role": ROLE_NAMES.get(role, child.getRoleName()),
            "sensitive": states.contains(pyatspi.STATE_SENSITIVE) and states.contains(pyatspi.STATE_ENABLED),
        }
        # Qt: a checkable action is a menu item, CHECKED when on.
        if role in (pyatspi.ROLE_CHECK_MENU_ITEM, pyatspi.ROLE_RADIO_MENU_ITEM) \
                or states.contains(pyatspi.STATE_CHECKED):
            item["checked"] = states.contains(pyatspi.STATE_CHECKED)
        try:
            action = child.queryAction()
            binding = action.getKeyBinding(0) if action.nActions else ""
            if binding:
                item["keys"] = binding
        except NotImplementedError:
            pass
        except GLib.Error:
            pass
        if role == pyatspi.ROLE_MENU:
            item["children"] = menu_items(child)
        elif child.childCount > 0:
            # Qt: a submenu's item is a menu item holding a popup menu.
            inner = [node for node in children(child) if node.getRole() == pyatspi.ROLE_POPUP_MENU]
            if inner:
                item["role"] = ROLE_NAMES[pyatspi.ROLE_MENU]
                item["children"] = menu_items(inner[0], shown=has_state(inner[0], pyatspi.STATE_VISIBLE))
        items.append(item)
    return items


def gtk4_menu_items(menu):
    """The items of a GTK 4 GtkPopoverMenu as AT-SPI gives them (GTK 4.8):
    menu items and separators nested in panels (its sections), in order;
    only what is visible. The popover's pages are panels named
    GtkStackPage, all VISIBLE: the first is the menu, each other one a
    submenu, whose first item is its title (the way back); its items become
    the children of the menu's item of that title, and a page no item
    leads to (its item went) is left out."""
    pages = []

    def visit(node, into):
        for child in children(node):
            try:
                role = child.getRole()
                states = child.getState()
            except GLib.Error:
                continue
            if not states.contains(pyatspi.STATE_VISIBLE):
                continue
            if role == pyatspi.ROLE_PANEL and child.name == "GtkStackPage":
                pages.append(child)
            elif role == pyatspi.ROLE_SEPARATOR:
                into.append({"name": "", "label": "", "role": "separator", "sensitive": True})
            elif role in ROLE_NAMES and role != pyatspi.ROLE_MENU:
                name = child.name or ""
                item = {"name": name, "label": label_of(name), "role": ROLE_NAMES[role],
                        "sensitive": states.contains(pyatspi.STATE_SENSITIVE)}
                if role in (pyatspi.ROLE_CHECK_MENU_ITEM, pyatspi.ROLE_RADIO_MENU_ITEM):
                    item["checked"] = states.contains(pyatspi.STATE_CHECKED)
                into.append(item)
            else:
                visit(child, into)

    items = []
    visit(menu, items)
    if pages:
        visit(pages[0], items)
        for page in pages[1:]:
            inner = []
            visit(page, inner)
            if not inner:
                continue
            title, rest = inner[0]["label"], [item for item in inner[1:] if item["role"] != "separator"]
            for item in items:
                if item["label"] == title and item["role"] != "separator" and "children" not in item:
                    item["role"] = ROLE_NAMES[pyatspi.ROLE_MENU]
                    item["children"] = rest
                    break
    # GTK draws a separator before each section but the first one shown.
    while items and items[0]["role"] == "separator":
        items.pop(0)
    return items


def describe(accessible, depth=0, max_depth=30):
    try:
        states = accessible.getState()
        node = {"role": accessible.getRoleName(), "name": accessible.name or ""}
        flags = [name for name, state in (("showing", pyatspi.STATE_SHOWING), ("focused", pyatspi.STATE_FOCUSED),
                                          ("active", pyatspi.STATE_ACTIVE), ("editable", pyatspi.STATE_EDITABLE),
                                          ("sensitive", pyatspi.STATE_SENSITIVE), ("visible", pyatspi.STATE_VISIBLE))
                 if states.contains(state)]
        node["states"] = flags
    except GLib.Error as error:
        return {"error": str(error)}
    if depth < max_depth and accessible.getRole() != pyatspi.ROLE_MENU_BAR:
        kids = [describe(child, depth + 1, max_depth) for child in children(accessible)]
        if kids:
            node["children"] = kids
    return node


# MARK: The session: accessibility bus, registry, program


class Session:
    def __init__(self, app, gtk_module, gtk_path, timeout):
        self.app_name = app
        self.timeout = timeout
        self.processes = []
        self.home = tempfile.mkdtemp(prefix="menubus-gtk-app-")
        self.env = dict(os.environ)
        for variable in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
                         "XDG_STATE_HOME"):
            folder = os.path.join(self.home, variable.lower())
            os.makedirs(folder, mode=0o700)
            self.env[variable] = folder
        # Settings in memory: no dconf on the private bus, no session to
        # restore, the programs' defaults each run.
        self.env["GSETTINGS_BACKEND"] = "memory"
        self.env["LANG"] = "C.UTF-8"
        self.env["LANGUAGE"] = "C"
        self.env.pop("LC_ALL", None)
        self.env.pop("NO_AT_BRIDGE", None)
        self.env.pop("GTK_MODULES", None)
        self.env.pop("AT_SPI_BUS_ADDRESS", None)
        self.app_env = dict(self.env)
        if app in GTK4_APPS:
            self.app_env["GSK_RENDERER"] = "cairo"
            self.app_env["GDK_BACKEND"] = "x11"
        if app in QT_APPS:
            self.app_env["QT_ACCESSIBILITY"] = "1"
            self.app_env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
            self.app_env["QT_QPA_PLATFORM"] = "xcb"
        if gtk_module:
            self.app_env["GTK_MODULES"] = gtk_module
        if gtk_path:
            self.app_env["GTK_PATH"] = gtk_path
        # A test's own config folder for the program (GTK 4's settings.ini
        # as `menubus-cli integrate gtk` leaves it).
        if os.environ.get("GTK_APP_CONFIG_HOME"):
            self.app_env["XDG_CONFIG_HOME"] = os.environ["GTK_APP_CONFIG_HOME"]
        # This driver's own libatspi finds the bus the same way the program
        # does: through the session bus and the X root window.
        os.environ.update({key: self.env[key] for key in ("XDG_RUNTIME_DIR", "HOME")})
        self.app = None
        self.window = None
        self.frame = None
        self.editor = None
        self.search = None
        self.target = None
        self.timings = {}
        self.clipboard_owner = None

    def spawn(self, command, env, death_signal=signal.SIGTERM):
        process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                                   stderr=sys.stderr, start_new_session=True,
                                   preexec_fn=die_with_parent(death_signal))
        self.processes.append(process)
        return process

    def start(self):
        started = now_ms()
        self.start_accessibility_bus()
        self.timings["a11y_bus_ms"] = round(now_ms() - started, 1)
        self.start_registry()
        self.timings["registry_ms"] = round(now_ms() - started, 1)
        self.start_app()
        self.timings["app_ms"] = round(now_ms() - started, 1)

    def start_accessibility_bus(self):
        self.launcher = self.spawn(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], self.env)
        session = Gio.bus_get_sync(Gio.BusType.SESSION, None)

        def address():
            if self.launcher.poll() is not None:
                raise Failure("at-spi-bus-launcher exited with %s (another launcher owns org.a11y.Bus on this bus?)"
                              % self.launcher.returncode)
            owner = session.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "NameHasOwner", GLib.Variant("(s)", ("org.a11y.Bus",)),
                                      GLib.VariantType("(b)"), Gio.DBusCallFlags.NONE, 2000, None).unpack()[0]
            if not owner:
                return None
            return session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None,
                                     GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 2000, None).unpack()[0]

        self.a11y_address = poll(address, self.timeout)
        if not self.a11y_address:
            raise Failure("org.a11y.Bus gave no accessibility bus address within %s s" % self.timeout)
        # Toolkits that ask (GTK 4, Qt) export their tree only when this is
        # set; GTK 3's atk-bridge exports whenever it finds the bus.
        session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties", "Set",
                          GLib.Variant("(ssv)", ("org.a11y.Status", "IsEnabled", GLib.Variant("b", True))),
                          None, Gio.DBusCallFlags.NONE, 2000, None)
        self.a11y_bus = Gio.DBusConnection.new_for_address_sync(
            self.a11y_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

    def registry_owned(self):
        return self.a11y_bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "NameHasOwner", GLib.Variant("(s)", ("org.a11y.atspi.Registry",)),
                                       GLib.VariantType("(b)"), Gio.DBusCallFlags.NONE, 2000, None).unpack()[0]

    def start_registry(self):
        """at-spi2-registryd is activated on the accessibility bus (its
        service file is in the bus's own service directory); started here
        at once rather than by the first query, and checked."""
        self.a11y_bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "StartServiceByName", GLib.Variant("(su)", ("org.a11y.atspi.Registry", 0)),
                                GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, int(self.timeout * 1000), None)
        if not poll(self.registry_owned, self.timeout):
            raise Failure("at-spi2-registryd did not take org.a11y.atspi.Registry on the accessibility bus")
        Atspi.set_timeout(3000, int(self.timeout * 1000))
        # (A cache mask set on the desktop itself hangs libatspi 2.46; it is
        # set on the program's application object below.)
        self.desktop = pyatspi.Registry.getDesktop(0)
        if self.app_name in QT_APPS:
            self.listen_for_qt_popups()

    def listen_for_qt_popups(self):
        """Qt leaves popups (QMenu) out of the application's children: the
        driver hears of each as it shows (Qt sends the event once a
        listener for it is registered, so this comes before the program)."""
        self.qt_popups = []

        def heard(event):
            try:
                if event.detail1 == 1 and event.source.getRole() in (pyatspi.ROLE_POPUP_MENU, pyatspi.ROLE_MENU):
                    self.qt_popups.append(event.source)
            except GLib.Error:
                pass

        self.qt_listener = Atspi.EventListener.new(heard)
        self.qt_listener.register("object:state-changed:showing")

    def publish_bus_on_root_window(self):
        """Qt 5.15 asks the session bus for the accessibility bus, opens it
        asynchronously and meanwhile registers with the registry, which
        fails and is never tried again: the program stays out of the tree.
        With the X root window's AT_SPI_BUS property (what a desktop
        session's launcher sets) it opens the bus at once."""
        from Xlib import Xatom, display
        screen = display.Display()
        try:
            root = screen.screen().root
            root.change_property(screen.intern_atom("AT_SPI_BUS"), Xatom.STRING, 8, self.a11y_address.encode())
            screen.sync()
        finally:
            screen.close()

    def start_app(self):
        if self.app_name in QT_APPS:
            self.publish_bus_on_root_window()
        command = list(APPS[self.app_name])
        if self.app_name in ("kwrite", "geany"):
            document = os.path.join(self.home, "document.txt")
            open(document, "w").close()
            command.append(document)
        self.process = self.spawn(command, self.app_env)

        def found():
            if self.process.poll() is not None:
                raise Failure("%s exited with %s before it showed a window" % (self.app_name, self.process.returncode))
            for application in children(self.desktop):
                try:
                    if application.get_process_id() != self.process.pid:
                        continue
                except GLib.Error:
                    continue
                for child in children(application):
                    if child.getRole() == pyatspi.ROLE_FRAME and has_state(child, pyatspi.STATE_SHOWING):
                        # Read the program, not a cache: every query below goes to it.
                        application.set_cache_mask(Atspi.Cache.NONE)
                        return application, child
            return None

        found_app = poll(found, self.timeout, 0.05)
        if not found_app:
            raise Failure("%s showed no window in the accessibility tree within %s s (atk-bridge not loaded?)"
                          % (self.app_name, self.timeout))
        self.app, self.frame = found_app
        self.editor = poll(self.find_editor, self.timeout, 0.05)
        if not self.editor:
            raise Failure("no editable text view in %s's window" % self.app_name)
        self.window = poll(self.x_window, self.timeout, 0.05)
        if not self.window:
            raise Failure("xdotool found no visible X window of %s" % self.app_name)
        self.activate_window()

    def x_window(self):
        result = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(self.process.pid)],
                                capture_output=True, text=True, timeout=10)
        windows = result.stdout.split()
        return windows[-1] if windows else None

    def activate_window(self):
        """No window manager runs under Xvfb: the X focus is given to the
        program's window directly, and the window counts as active once GTK
        saw the focus (AT-SPI's ACTIVE state on the frame)."""
        subprocess.run(["xdotool", "windowfocus", "--sync", self.window], timeout=10, check=False)
        if not poll(lambda: has_state(self.frame, pyatspi.STATE_ACTIVE), self.timeout):
            raise Failure("%s's window did not become active" % self.app_name)

    def on_screen(self, accessible):
        """GTK 3 sets SHOWING on what is on screen; GTK 4.8 sets it on
        windows only, and VISIBLE on the widgets in them."""
        if self.app_name in GTK4_APPS:
            return has_state(accessible, pyatspi.STATE_VISIBLE)
        return has_state(accessible, pyatspi.STATE_SHOWING)

    def find_editor(self):
        """The document's text view: an editable text inside a scroll pane
        (Qt, and widgets that draw their own text: the multi-line editable
        text on screen)."""
        for accessible in walk(self.frame, skip=(pyatspi.ROLE_MENU_BAR,)):
            if self.app_name in QT_APPS or self.app_name in OWN_TEXT_APPS:
                if accessible.getRole() == pyatspi.ROLE_TEXT and has_state(accessible, pyatspi.STATE_EDITABLE) \
                        and has_state(accessible, pyatspi.STATE_MULTI_LINE) and self.on_screen(accessible):
                    return accessible
                continue
            if accessible.getRole() == pyatspi.ROLE_TEXT and has_state(accessible, pyatspi.STATE_EDITABLE) \
                    and self.on_screen(accessible):
                parent = accessible.parent
                if parent is not None and parent.getRole() == pyatspi.ROLE_SCROLL_PANE:
                    return accessible
        return None

    def focused(self):
        """The focused widget of the program's window."""
        for accessible in walk(self.frame, skip=(pyatspi.ROLE_MENU_BAR,)):
            if has_state(accessible, pyatspi.STATE_FOCUSED) and accessible.getRole() != pyatspi.ROLE_FRAME:
                return accessible
        return None

    def focused_text(self):
        """The focused editable text of the program's window that is not the editor."""
        for accessible in walk(self.frame, skip=(pyatspi.ROLE_MENU_BAR,)):
            if accessible.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY) and accessible != self.editor \
                    and has_state(accessible, pyatspi.STATE_FOCUSED) and has_state(accessible, pyatspi.STATE_EDITABLE):
                return accessible
        return None

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGCONT)
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for process in reversed(self.processes):
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=3)
        shutil.rmtree(self.home, ignore_errors=True)

    # MARK: Commands

    def xdotool(self, *arguments):
        result = subprocess.run(["xdotool", *arguments], capture_output=True, text=True, timeout=20)
        if result.returncode != 0:
            raise Failure("xdotool %s failed: %s" % (" ".join(arguments), result.stderr.strip()))

    def require_target(self):
        if self.target is None:
            raise Failure("no widget focused yet: send 'focus editor' or 'focus search' first")
        return self.target

    def find_search(self):
        """GTK 4 example: the editable text that is not the document's."""
        for accessible in walk(self.frame, skip=(pyatspi.ROLE_MENU_BAR,)):
            if accessible.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY) and accessible != self.editor \
                    and has_state(accessible, pyatspi.STATE_EDITABLE) and self.on_screen(accessible):
                return accessible
        return None

    def focus_from_keyboard(self, widget):
        """GTK 4.8 does not take the focus through AT-SPI (GrabFocus): the
        focus moves with Ctrl+Tab (which no text widget takes as text)
        until `widget` has it."""
        for _ in range(6):
            if has_state(widget, pyatspi.STATE_FOCUSED):
                return True
            before = self.focused()
            self.xdotool("key", "ctrl+Tab")
            poll(lambda: self.focused() != before, 2)
        return has_state(widget, pyatspi.STATE_FOCUSED)

    def command_focus(self, which):
        started = now_ms()
        if self.app_name in GTK4_APPS:
            widget = self.editor if which == "editor" else self.find_search() if which == "search" else None
            if widget is None:
                raise Failure("focus takes 'editor' or 'search' (and the window has both)")
            if not self.focus_from_keyboard(widget):
                raise Failure("the %s did not take the focus" % which)
            self.target = widget
            if which == "search":
                self.search = widget
            return {"widget": which, "role": widget.getRoleName(), "ms": round(now_ms() - started, 1)}
        if which == "editor":
            self.editor.queryComponent().grabFocus()
            if not poll(lambda: has_state(self.editor, pyatspi.STATE_FOCUSED), self.timeout):
                raise Failure("the text view did not take the focus")
            self.target = self.editor
        elif which == "search":
            if self.search is None or not has_state(self.search, pyatspi.STATE_SHOWING):
                self.xdotool("key", "ctrl+f")

                def entry():
                    # Qt: featherpad's field is the line edit of an editable
                    # combo box, both focused (as is the page tab).
                    widget = self.focused_text() if self.app_name in QT_APPS else self.focused()
                    if widget is not None and widget.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY) \
                            and widget != self.editor:
                        return widget
                    return None

                self.search = poll(entry, self.timeout)
                if self.search is None:
                    raise Failure("Ctrl+F focused no search entry")
            else:
                self.search.queryComponent().grabFocus()
                if not poll(lambda: has_state(self.search, pyatspi.STATE_FOCUSED), self.timeout):
                    raise Failure("the search entry did not take the focus")
            self.target = self.search
        else:
            raise Failure("focus takes 'editor' or 'search'")
        return {"widget": which, "role": self.target.getRoleName(), "ms": round(now_ms() - started, 1)}

    def text_of(self, widget):
        text = widget.queryText()
        if self.app_name in GTK4_APPS:
            # GTK 4.8's GtkText answers "" for an end offset of -1.
            return text.getText(0, text.characterCount)
        return text.getText(0, -1)

    def selection_of(self, widget):
        text = widget.queryText()
        if text.getNSelections() < 1:
            return {"selection": "", "start": text.caretOffset, "end": text.caretOffset}
        start, end = text.getSelection(0)
        return {"selection": text.getText(start, end), "start": start, "end": end}

    def command_type(self, argument):
        widget = self.require_target()
        self.xdotool("type", "--delay", "12", "--", argument)

        def arrived():
            # The typed text ends at the caret once every key press arrived.
            text = widget.queryText()
            caret = text.caretOffset
            return caret >= len(argument) and text.getText(caret - len(argument), caret) == argument

        if not poll(arrived, self.timeout):
            raise Failure("the typed text did not arrive: %r" % self.text_of(widget))
        return {"text": self.text_of(widget)}

    def command_clear(self):
        """Empties the focused widget from the keyboard (End, Shift+Home,
        BackSpace: keys no program here binds to an action of its own)."""
        widget = self.require_target()
        for _ in range(20):  # a line each time
            before = self.text_of(widget)
            if not before:
                return {"text": ""}
            self.xdotool("key", "End", "shift+Home", "BackSpace")
            if not poll(lambda: self.text_of(widget) != before, self.timeout):
                break
        raise Failure("the widget did not empty: %r" % self.text_of(widget))

    def selected_length(self, widget):
        selection = self.selection_of(widget)
        return selection["end"] - selection["start"]

    def command_key(self, argument):
        keys = argument.split()
        if not keys:
            raise Failure("key needs a keysym")
        self.xdotool("key", "--", *keys)
        return {"keys": keys}

    def command_select_word_left(self):
        widget = self.require_target()
        self.xdotool("key", "ctrl+shift+Left")
        if not poll(lambda: self.selected_length(widget) > 0, self.timeout):
            raise Failure("ctrl+shift+Left selected nothing")
        return self.selection_of(widget)

    def popup(self):
        """The showing popup menu: a window of the program (not its frame)
        that holds a showing menu. GTK 4: a visible GtkPopoverMenu (role
        menu) inside the window, a child of the text widget it belongs to
        (GTK keeps it there, not visible, once closed)."""
        if self.app_name in GTK4_APPS:
            for accessible in walk(self.frame, skip=(pyatspi.ROLE_MENU,)):
                try:
                    if accessible.getRole() == pyatspi.ROLE_MENU and has_state(accessible, pyatspi.STATE_VISIBLE):
                        return accessible
                except GLib.Error:
                    continue
            return None
        if self.app_name in QT_APPS:
            # The events heard so far, then the newest popup still showing.
            context = GLib.MainContext.default()
            while context.iteration(False):
                pass
            for window in reversed(self.qt_popups):
                try:
                    if has_state(window, pyatspi.STATE_SHOWING) and window.childCount > 0:
                        return window
                except GLib.Error:
                    continue
            self.qt_popups = [window for window in self.qt_popups if has_state(window, pyatspi.STATE_SHOWING)]
            return None
        for window in children(self.app):
            try:
                if window.getRole() == pyatspi.ROLE_FRAME or not has_state(window, pyatspi.STATE_SHOWING):
                    continue
            except GLib.Error:
                continue
            for child in children(window):
                if child.getRole() == pyatspi.ROLE_MENU and has_state(child, pyatspi.STATE_SHOWING) \
                        and child.childCount > 0:
                    return child
        return None

    def read_menu(self, menu):
        """The items once two readings agree (a menu filled in as it opens)."""
        items_of = gtk4_menu_items if self.app_name in GTK4_APPS else menu_items
        previous = items_of(menu)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            time.sleep(0.03)
            current = items_of(menu)
            if current == previous:
                return current
            previous = current
        return previous

    def right_click_point(self, widget):
        try:
            text = widget.queryText()
        except NotImplementedError:
            x, y, width, height = widget.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            return x + width // 2, y + height // 2
        extents = None
        if text.getNSelections() > 0:
            start, end = text.getSelection(0)
            if end > start:
                extents = text.getRangeExtents(start, end, pyatspi.DESKTOP_COORDS)
        if extents is None or extents[2] <= 0:
            caret = text.caretOffset
            extents = text.getCharacterExtents(max(caret - 1, 0), pyatspi.DESKTOP_COORDS)
        if extents is None or extents[2] <= 0 or extents[3] <= 0:
            x, y, width, height = widget.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            return x + min(20, width // 2), y + height // 2
        x, y, width, height = extents
        return x + width // 2, y + height // 2

    def command_open_menu(self, argument):
        way = argument or "shift+F10"
        if self.popup() is not None:
            raise Failure("a menu is already showing")
        widget = self.target
        ways = ["shift+F10", "right-click"] if way == "auto" else [way]
        for attempt in ways:
            started = now_ms()
            if attempt == "shift+F10":
                self.xdotool("key", "shift+F10")
            elif attempt == "menu-key":
                self.xdotool("key", "Menu")
            elif attempt == "right-click":
                if widget is None:
                    raise Failure("right-click needs a focused widget")
                x, y = self.right_click_point(widget)
                self.xdotool("mousemove", "--sync", str(x), str(y))
                started = now_ms()
                self.xdotool("click", "3")
            else:
                raise Failure("open-menu takes shift+F10, menu-key, right-click or auto")
            menu = poll(self.popup, self.timeout if way != "auto" or attempt == ways[-1] else 2)
            if menu is not None:
                shown = now_ms() - started
                items = self.read_menu(menu)
                return {"way": attempt, "ms": round(shown, 1), "items": items}
        raise Failure("no popup menu showed after %s" % " then ".join(ways))

    def command_menu(self):
        menu = self.popup()
        if menu is None:
            raise Failure("no menu is showing")
        return {"items": self.read_menu(menu)}

    def command_await_menu(self):
        """A popup menu something else opens (menubus-cli show-menu): its
        items once it shows, and how long after this command it did."""
        started = now_ms()
        menu = poll(self.popup, self.timeout)
        if menu is None:
            raise Failure("no popup menu showed within %s s" % self.timeout)
        return {"way": "awaited", "ms": round(now_ms() - started, 1), "items": self.read_menu(menu)}

    def find_item(self, menu, name):
        for child in children(menu):
            label = (child.name or "").strip()
            if label == name.strip() or (child.name or "") == name:
                return child
        for child in children(menu):
            if child.getRole() == pyatspi.ROLE_MENU:
                found = self.find_item(child, name)
                if found is not None:
                    return found
        return None

    def choose_from_keyboard(self, menu, name):
        """GTK 4.8's popover menu items have no AT-SPI Action (and Qt's
        leave the menu open): the item is
        reached with Down (the focused item, read through AT-SPI, tells where
        the keyboard is) and chosen with Return."""
        started = now_ms()
        self.reach_from_keyboard(menu, name)
        self.xdotool("key", "Return")
        if not poll(lambda: self.popup() is None, self.timeout):
            raise Failure("the menu stayed open after %r" % name)
        return {"chosen": name, "ms": round(now_ms() - started, 1), "way": "keyboard"}

    def reach_from_keyboard(self, menu, name):
        """Moves the keyboard to the item `name` of `menu` with Down."""
        items = [item for item in gtk4_menu_items(menu) if item["role"] != "separator"]
        labels = [item["label"] for item in items]
        if label_of(name) not in labels:
            raise Failure("the menu has no item %r: %s" % (name, labels))
        if not items[labels.index(label_of(name))]["sensitive"]:
            raise Failure("%r is insensitive" % name)

        def focused_item():
            for accessible in walk(menu):
                if has_state(accessible, pyatspi.STATE_FOCUSED) and accessible.getRole() in ROLE_NAMES:
                    return accessible
            return None

        for _ in range(2 * len(items) + 2):
            current = focused_item()
            if current is not None and label_of(current.name or "") == label_of(name):
                return
            self.xdotool("key", "Down")
            poll(lambda: focused_item() is not None and focused_item() != current, 0.5)
        raise Failure("Down never reached %r" % name)

    def command_choose(self, name):
        """`choose Item`, or `choose Submenu > Item` (Qt: the submenu opens
        with Right)."""
        menu = self.popup()
        if menu is None:
            raise Failure("no menu is showing")
        path = [part.strip() for part in name.split(" > ")]
        if len(path) > 1:
            if self.app_name not in QT_APPS:
                raise Failure("choosing in a submenu is done for Qt programs only")
            for part in path[:-1]:
                self.reach_from_keyboard(menu, part)
                self.xdotool("key", "Right")
                parent = menu
                menu = poll(lambda: self.popup() if self.popup() not in (None, parent) else None, self.timeout)
                if menu is None:
                    raise Failure("Right opened no submenu at %r" % part)
            return self.choose_from_keyboard(menu, path[-1])
        # Qt's menu items take the AT-SPI action but the menu stays open:
        # chosen from the keyboard, as GTK 4's.
        if self.app_name in GTK4_APPS or self.app_name in QT_APPS:
            return self.choose_from_keyboard(menu, name)
        item = self.find_item(menu, name)
        if item is None:
            raise Failure("the menu has no item %r: %s" % (name, [i["name"] for i in menu_items(menu)]))
        if not has_state(item, pyatspi.STATE_SENSITIVE):
            raise Failure("%r is insensitive" % name)
        action = item.queryAction()
        index = next((i for i in range(action.nActions) if action.getName(i) in ("click", "activate", "press")), 0)
        started = now_ms()
        action.doAction(index)
        if not poll(lambda: self.popup() is None, self.timeout):
            raise Failure("the menu stayed open after %r" % name)
        return {"chosen": name, "ms": round(now_ms() - started, 1)}

    def command_close_menu(self):
        if self.popup() is None:
            return {"closed": False}
        self.xdotool("key", "Escape")
        if not poll(lambda: self.popup() is None, self.timeout):
            raise Failure("the menu stayed open after Escape")
        return {"closed": True}

    def command_double_click(self):
        """A double click near the start of the target widget: it takes the
        focus, and the word there is selected."""
        widget = self.require_target()
        x, y, width, height = widget.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        x, y = x + min(12, width // 2), y + height // 2
        try:  # on the first line of a text taller than it (an editor's)
            cx, cy, cw, ch = widget.queryText().getCharacterExtents(1, pyatspi.DESKTOP_COORDS)
            if cw > 0 and ch > 0:
                x, y = cx + cw // 2, cy + ch // 2
        except (NotImplementedError, GLib.Error):
            pass
        # A pointer already there leaves `mousemove --sync` waiting 15 s: a
        # pixel aside first (a second double click at the same place).
        self.xdotool("mousemove", str(x + 1), str(y + 1))
        self.xdotool("mousemove", "--sync", str(x), str(y))
        self.xdotool("click", "--repeat", "2", "1")
        if not poll(lambda: has_state(widget, pyatspi.STATE_FOCUSED), self.timeout):
            raise Failure("the double-clicked widget did not take the focus")
        return {}

    def command_scroll(self):
        """A turn of the wheel (down) over the middle of the target."""
        widget = self.require_target()
        x, y, width, height = widget.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        self.xdotool("mousemove", "--sync", str(x + width // 2), str(y + height // 2))
        self.xdotool("click", "5")
        return {}

    def edit_bar(self):
        """The showing edit bar: an accessible of role tool bar named
        "Edit Bar", in any of the program's windows (a GTK 3 popover is
        inside the frame, Qt's bar is a window of its own)."""
        for window in children(self.app):
            try:
                if not has_state(window, pyatspi.STATE_SHOWING):
                    continue
            except GLib.Error:
                continue
            for accessible in walk(window, max_depth=30, skip=(pyatspi.ROLE_MENU_BAR, pyatspi.ROLE_MENU)):
                try:
                    if accessible.getRole() == pyatspi.ROLE_TOOL_BAR and (accessible.name or "") == "Edit Bar" \
                            and has_state(accessible, pyatspi.STATE_SHOWING):
                        return accessible
                except GLib.Error:
                    continue
        return None

    def bar_buttons(self, bar):
        """(label, accessible) of the bar's buttons, in order."""
        buttons = []
        for accessible in walk(bar, max_depth=6):
            try:
                if accessible.getRole() in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON) \
                        and has_state(accessible, pyatspi.STATE_SHOWING):
                    buttons.append((accessible.name or "", accessible))
            except GLib.Error:
                continue
        return buttons

    def command_bar(self):
        """The edit bar's button labels, or null when none shows."""
        bar = self.edit_bar()
        return {"bar": None if bar is None else [label for label, _ in self.bar_buttons(bar)]}

    def command_await_bar(self):
        """Waits for the edit bar: its labels and how long it took (ms)."""
        started = now_ms()
        bar = poll(self.edit_bar, self.timeout)
        if bar is None:
            raise Failure("no edit bar showed")
        answer = {"ms": round(now_ms() - started, 1), "bar": [label for label, _ in self.bar_buttons(bar)]}
        # Where it shows, and the target's selection (x, y, width, height).
        try:
            answer["extents"] = list(bar.queryComponent().getExtents(pyatspi.DESKTOP_COORDS))
            text = self.target.queryText() if self.target is not None else None
            if text is not None and text.getNSelections() > 0:
                answer["selection_extents"] = list(text.getRangeExtents(*text.getSelection(0), pyatspi.DESKTOP_COORDS))
        except (GLib.Error, NotImplementedError):
            pass
        return answer

    def command_choose_bar(self, name):
        """A click (button 1) on the edit bar's button of that label."""
        bar = self.edit_bar()
        if bar is None:
            raise Failure("no edit bar shows")
        for label, button in self.bar_buttons(bar):
            if label == name:
                x, y, width, height = button.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                self.xdotool("mousemove", "--sync", str(x + width // 2), str(y + height // 2))
                self.xdotool("click", "1")
                return {"chosen": name}
        raise Failure("no button %r in the edit bar" % name)

    def command_target(self, name):
        """The widget of that accessible name becomes the one menus open
        on, without taking the focus (a right click gives it)."""
        for accessible in walk(self.frame, skip=(pyatspi.ROLE_MENU_BAR,)):
            if (accessible.name or "") == name and self.on_screen(accessible):
                self.target = accessible
                return {"widget": name, "role": accessible.getRoleName()}
        raise Failure("no widget named %r on screen" % name)

    def command_click(self, name):
        """A click (button 1) on the middle of the widget of that
        accessible name, as a tap on a toolbar button."""
        self.command_target(name)
        x, y, width, height = self.target.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        self.xdotool("mousemove", "--sync", str(x + width // 2), str(y + height // 2))
        self.xdotool("click", "1")
        return {"clicked": name}

    def command_hold(self, name):
        """Press and hold (button 1) on the widget of that accessible name
        until a menu shows, then release."""
        self.command_target(name)
        x, y, width, height = self.target.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        self.xdotool("mousemove", "--sync", str(x + width // 2), str(y + height // 2))
        started = now_ms()
        self.xdotool("mousedown", "1")
        try:
            menu = poll(self.popup, self.timeout)
        finally:
            self.xdotool("mouseup", "1")
        if menu is None:
            raise Failure("no menu showed while %r was held" % name)
        return {"ms": round(now_ms() - started, 1), "items": self.read_menu(menu)}

    def command_title(self):
        """The program's window title."""
        return {"title": self.frame.name or ""}

    def command_attributes(self, argument):
        """The text attributes at the start of the widget's selection (or
        its caret), as AT-SPI gives them: name -> value."""
        widget = self.widget_named(argument)
        text = widget.queryText()
        offset = text.getSelection(0)[0] if text.getNSelections() > 0 else text.caretOffset
        attributes, start, end = text.getAttributeRun(offset, True)
        return {"offset": offset, "attributes": dict(pair.split(":", 1) for pair in attributes if ":" in pair)}

    def command_text(self, argument):
        widget = self.widget_named(argument)
        return {"text": self.text_of(widget)}

    def command_selection(self, argument):
        return self.selection_of(self.widget_named(argument))

    def widget_named(self, argument):
        if argument == "editor":
            return self.editor
        if argument == "search":
            if self.search is None:
                raise Failure("the search entry was never focused")
            return self.search
        return self.require_target()

    def command_ping(self):
        """A Text query of the text view: libatspi caches nothing here, so
        the program's main loop has to answer it."""
        started = now_ms()
        offset = self.editor.queryText().caretOffset
        return {"ms": round(now_ms() - started, 2), "caret": offset}

    def command_set_clipboard(self, text, stalled=False):
        """Another program owns the clipboard, as when the user copies in
        another window: the program under test hears of it only through the
        X server. The owner runs until the session ends; `stalled`, it stops
        itself (SIGSTOP) once it owns the clipboard, so nobody asking it for
        the clipboard's types gets an answer."""
        if self.clipboard_owner is not None and self.clipboard_owner.poll() is None:
            os.killpg(self.clipboard_owner.pid, signal.SIGTERM)
            self.clipboard_owner.wait(timeout=5)
        ready = os.path.join(self.home, "clipboard-owned")
        if os.path.exists(ready):
            os.unlink(ready)
        env = dict(self.env)
        env["NO_AT_BRIDGE"] = "1"
        env["MENUBUS_TEXT"] = text
        env["MENUBUS_READY"] = ready
        env["MENUBUS_STALL"] = "1" if stalled else ""
        program = (
            "import os, gi\n"
            "gi.require_version('Gtk', '3.0')\n"
            "from gi.repository import Gtk, Gdk, GLib\n"
            "clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)\n"
            "clipboard.set_text(os.environ['MENUBUS_TEXT'], -1)\n"
            "Gdk.Display.get_default().sync()\n"
            "open(os.environ['MENUBUS_READY'], 'w').close()\n"
            "if os.environ['MENUBUS_STALL']:\n"
            "    os.kill(os.getpid(), 19)\n"
            "GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, Gtk.main_quit)\n"
            "Gtk.main()\n")
        started = now_ms()
        self.clipboard_owner = self.spawn(["/usr/bin/python3", "-c", program], env)
        if poll(lambda: os.path.exists(ready) or None, self.timeout) is None:
            raise Failure("the clipboard owner did not start")
        return {"owned": True, "ms": round(now_ms() - started, 1)}

    def command_dump(self):
        return {"tree": [describe(child) for child in children(self.app)]}

    def handle(self, line):
        verb, _, argument = line.strip().partition(" ")
        argument = argument.strip()
        handlers = {
            "focus": lambda: self.command_focus(argument),
            "type": lambda: self.command_type(line.strip()[len("type "):]),
            "key": lambda: self.command_key(argument),
            "clear": self.command_clear,
            "select-word-left": self.command_select_word_left,
            "open-menu": lambda: self.command_open_menu(argument),
            "menu": self.command_menu,
            "await-menu": self.command_await_menu,
            "choose": lambda: self.command_choose(argument),
            "close-menu": self.command_close_menu,
            "text": lambda: self.command_text(argument),
            "selection": lambda: self.command_selection(argument),
            "target": lambda: self.command_target(argument),
            "attributes": lambda: self.command_attributes(argument),
            "set-clipboard": lambda: self.command_set_clipboard(line.strip()[len("set-clipboard "):]),
            "set-stalled-clipboard":
                lambda: self.command_set_clipboard(line.strip()[len("set-stalled-clipboard "):], stalled=True),
            "double-click": self.command_double_click,
            "scroll": self.command_scroll,
            "bar": self.command_bar,
            "await-bar": self.command_await_bar,
            "choose-bar": lambda: self.command_choose_bar(argument),
            "click": lambda: self.command_click(argument),
            "hold": lambda: self.command_hold(argument),
            "title": self.command_title,
            "ping": self.command_ping,
            "dump": self.command_dump,
        }
        if verb not in handlers:
            raise Failure("unknown command %r" % verb)
        return handlers[verb]()


def reply(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def main(session_class=None):
    """Runs the driver; `session_class`, a subclass of Session with verbs of
    its own (Tests/apps/undo_property.py)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app", choices=sorted(APPS))
    parser.add_argument("--gtk-module", default="", help="GTK_MODULES for the program (menubus)")
    parser.add_argument("--gtk-path", default="", help="GTK_PATH for the program (the folder holding modules/)")
    parser.add_argument("--timeout", type=float, default=20, help="seconds every wait may take")
    parser.add_argument("--wayland", action="store_true", help="under a headless sway of its own, not X11")
    options = parser.parse_args()
    if options.wayland:
        import wayland_session
        session_class = wayland_session.on_wayland(session_class or Session, Failure)
    tools = [path for path, _ in wayland_session.requirements()] if options.wayland else ["/usr/bin/xdotool"]
    for tool in ("/usr/libexec/at-spi-bus-launcher", APPS[options.app][0], *tools):
        if not os.path.exists(tool):
            reply({"ok": False, "missing": tool, "error": "%s is not installed" % tool})
            return 3
    if not (os.environ.get("DISPLAY") or options.wayland) or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        reply({"ok": False, "error": "needs DISPLAY (xvfb-run) and DBUS_SESSION_BUS_ADDRESS (a private bus)"})
        return 2
    faulthandler.register(signal.SIGUSR1)  # kill -USR1 prints where it waits
    # When xvfb-run or the test ends, this driver ends, and its children
    # with it (they have PR_SET_PDEATHSIG too).
    die_with_parent()()
    session = (session_class or Session)(options.app, options.gtk_module, options.gtk_path, options.timeout)
    try:
        try:
            session.start()
        except (Failure, GLib.Error) as error:
            reply({"ok": False, "error": str(error)})
            return 1
        reply({"ok": True, "ready": True, "app": options.app, "pid": session.process.pid, "driver_pid": os.getpid(),
               "module": options.gtk_module, "timings": session.timings})
        for line in sys.stdin:
            if not line.strip():
                continue
            if line.strip() == "quit":
                reply({"ok": True, "command": "quit"})
                break
            started = now_ms()
            try:
                answer = session.handle(line)
                answer = {"ok": True, "command": line.split()[0], **answer}
            except (Failure, GLib.Error, NotImplementedError) as error:
                answer = {"ok": False, "command": line.split()[0], "error": str(error)}
            answer["elapsed_ms"] = round(now_ms() - started, 1)
            if session.process.poll() is not None:
                answer["app_exited"] = session.process.returncode
            reply(answer)
        return 0
    finally:
        session.stop()


if __name__ == "__main__":
    sys.exit(main())
