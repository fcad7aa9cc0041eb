#!/usr/bin/python3
"""The time from the Menu key to a Qt 5 program's context menu on screen,
with and without the MenuBus Qt platform theme, measured at the X server.

Run by bench/desktop/qt-menu.sh under xvfb-run, on a private session bus where
menubusd runs. Two featherpads are started side by side, one with
QT_QPA_PLATFORMTHEME=menubus (QT_PLUGIN_PATH finding the built plugin)
and one with QT_QPA_PLATFORMTHEME unset (Qt's own choice, the theme the
plugin wraps); each gets a sentence typed and its last word selected.
Then, alternating between them, the selection changes, the Menu key is
sent through XTest and the time taken until the popup menu's window is
mapped on the root window (MapNotify of an input-output override-redirect
window whose _NET_WM_WINDOW_TYPE is a popup menu, as QMenu sets it);
Escape closes it. Then the first menu after a SIGSTOP of menubusd,
SAMPLES times (gtk-menu.py's first_after_stop): menubusd continued and
answering a Ping, one menu of each app after a selection change
(unmeasured), menubusd stopped, each app's next menu after another
selection change timed. Then the later menus with menubusd stopped,
alternating as above, and the resident memory (VmRSS) of fresh pairs
after one menu each.
With --floor-plugin-path, a third featherpad loads the theme built with
MENUBUS_BENCH_REPLAY, which shows its first menu's items again in every
later menu with no D-Bus: the floor, what Qt takes to draw the items
(running-floor, stopped-floor, ...-height-floor).

The X side (XTest, MapNotify, the alternation and the output lines) is
bench/desktop/gtk-menu.py's, loaded from it; the lines printed are the same:
running-with / running-without / stopped-... / rss-..., CASE-first-...,
CASE-height-..., first-after-stop-APP and first-after-stop-height-APP
(each app's first menu after each of the SAMPLES stops), and `theme-loaded without=... with=...` (the path of the
libmenubus.so mapped into each process, or no).
"""

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time

from Xlib import X

_spec = importlib.util.spec_from_file_location("gtk_menu", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gtk-menu.py"))
gtk_menu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gtk_menu)
Failure = gtk_menu.Failure


def log(*parts):
    print("qt-menu:", *parts, file=sys.stderr, flush=True)


class Screen(gtk_menu.Screen):
    """gtk-menu.py's Screen, opening the menu with the Menu key (Qt's
    editor opens none on Shift+F10) and timing only a window that is a
    popup menu."""

    def __init__(self):
        super().__init__()
        self.type_atom = self.display.intern_atom("_NET_WM_WINDOW_TYPE")
        self.menu_types = {self.display.intern_atom("_NET_WM_WINDOW_TYPE_POPUP_MENU"),
                           self.display.intern_atom("_NET_WM_WINDOW_TYPE_DROPDOWN_MENU")}
        self.seen = []

    def is_menu(self, window):
        if not self.drawn(window):
            return False
        try:
            prop = window.get_full_property(self.type_atom, X.AnyPropertyType)
        except Exception:
            return False
        kinds = set(prop.value) if prop is not None else set()
        return bool(kinds & self.menu_types)

    def open_menu(self, timeout=5):
        """The Menu key, timed from its press to the popup menu's MapNotify."""
        self.drain()
        menu = self.keycode("Menu")
        started = time.monotonic()
        self.display.xtest_fake_input(X.KeyPress, menu)
        self.display.flush()

        def accept(event):
            if event.type != X.MapNotify or not event.override:
                return False
            if self.is_menu(event.window):
                return True
            # Anything else Qt maps is noted, not timed.
            try:
                geometry = event.window.get_geometry()
                self.seen.append((geometry.width, geometry.height))
            except Exception:
                pass
            return False

        event, mapped = self.wait_event(accept, timeout)
        self.display.xtest_fake_input(X.KeyRelease, menu)
        self.display.flush()
        if event is None:
            raise Failure("no popup menu was mapped within %s s of the Menu key" % timeout)
        return (mapped - started) * 1000.0, event.window


class Featherpad(gtk_menu.Mousepad):
    def __init__(self, theme, plugin_path, label, log_dir):
        self.label = label
        self.home = tempfile.mkdtemp(prefix="menubus-qt-menu-")
        env = dict(os.environ)
        for variable in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[variable] = os.path.join(self.home, variable.lower())
            os.makedirs(env[variable])
        env.update({"LANG": "C.UTF-8", "LANGUAGE": "C", "QT_QPA_PLATFORM": "xcb", "NO_AT_BRIDGE": "1"})
        for variable in ("QT_QPA_PLATFORMTHEME", "QT_PLUGIN_PATH", "MENUBUS_DISABLE", "MENUBUS_QT_DEADLINE_MS",
                         "QT_ACCESSIBILITY", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "XDG_CURRENT_DESKTOP", "DESKTOP_SESSION"):
            env.pop(variable, None)
        if theme:
            env["QT_QPA_PLATFORMTHEME"] = "menubus"
            env["QT_PLUGIN_PATH"] = plugin_path
        self.stderr = open(os.path.join(log_dir, "featherpad-%s-%d.log" % (label, time.monotonic_ns())), "w")
        self.process = subprocess.Popen(["/usr/bin/featherpad", "--standalone"], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=self.stderr, start_new_session=True)
        result = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(self.process.pid)],
                                capture_output=True, text=True, timeout=30)
        windows = result.stdout.split()
        if not windows:
            self.stop()
            raise Failure("featherpad (%s) showed no window" % label)
        self.window = windows[-1]

    def theme_mapped(self):
        with open("/proc/%d/maps" % self.process.pid) as maps:
            for line in maps:
                if line.rstrip().endswith("/libmenubus.so"):
                    return line.split()[-1]
        return "no"

    def stop(self):
        super().stop()
        self.stderr.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--rss-runs", type=int, default=5)
    parser.add_argument("--plugin-path", required=True, help="QT_PLUGIN_PATH holding platformthemes/libmenubus.so")
    parser.add_argument("--floor-plugin-path",
                        help="QT_PLUGIN_PATH of the theme built with MENUBUS_BENCH_REPLAY: a third featherpad, the floor")
    parser.add_argument("--menubusd-pid", type=int, required=True)
    parser.add_argument("--log-dir", default=tempfile.gettempdir())
    parser.add_argument("--settle", type=float, default=0.15,
                        help="seconds after each focus and selection change, outside the timed span")
    options = parser.parse_args()

    screen = Screen()
    apps = []
    try:
        apps = [Featherpad(False, options.plugin_path, "without", options.log_dir),
                Featherpad(True, options.plugin_path, "with", options.log_dir)]
        if options.floor_plugin_path:
            apps.append(Featherpad(True, options.floor_plugin_path, "floor", options.log_dir))
        for app in apps:
            app.focus(options.settle)
            app.type_and_select()
        print("theme-loaded %s" % " ".join("%s=%s" % (app.label, app.theme_mapped()) for app in apps), flush=True)
        gtk_menu.report("running", gtk_menu.alternate(screen, apps, options.samples, options.settle))
        gtk_menu.report_first_after_stop(
            gtk_menu.first_after_stop(screen, apps, options.samples, options.settle, options.menubusd_pid))

        os.kill(options.menubusd_pid, signal.SIGSTOP)
        try:
            stopped = gtk_menu.alternate(screen, apps, options.samples, options.settle)
        finally:
            os.kill(options.menubusd_pid, signal.SIGCONT)
        gtk_menu.report("stopped", stopped)
        for app in apps:
            app.stop()
        apps = []

        gtk_menu.measure_rss(screen, lambda theme, label: Featherpad(theme, options.plugin_path, label, options.log_dir),
                             options.rss_runs, options.settle)
        print("other-windows %s" % " ".join("%dx%d" % size for size in sorted(set(screen.seen))), flush=True)
    except Failure as error:
        log(error)
        return 1
    finally:
        for app in apps:
            app.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
