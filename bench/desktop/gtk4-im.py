#!/usr/bin/python3
"""GNOME's text editor (GTK 4) with and without MenuBus's GTK 4 IM module,
measured at the X server.

Run by bench/desktop/gtk4-im.sh under xvfb-run, on a private session bus
where menubusd runs. gnome-text-editors are started in pairs side by side:
one with GTK's own IM (no GTK_PATH, no GTK_IM_MODULE), one with
GTK_IM_MODULE=menubus and GTK_PATH naming the module's build folder; both
drawn with cairo, the cursor not blinking (each app's own settings.ini),
no accessibility bridge. Alternating between the two of a pair:

- key press to menu shown (one pair): a word selected, Shift+F10 pressed,
  timed to the popover's override-redirect window mapped (MapNotify on the
  root window), Escape, MENU_SAMPLES menus each after one unmeasured;
- key press to character drawn (KEY_PAIRS fresh pairs, the first started
  of each pair alternating; in each app the sentence typed, a word selected
  and one menu opened and closed, then End, Return and SAMPLES letters
  each, alternating between the two): a letter pressed through
  XTest, timed to the first DamageNotify on the app's window (the DAMAGE
  extension, with python3-xlib: the frame that holds the character). Each
  app's frame clock ticks at its own phase; a key pressed at once after the
  window is still lands at much the same phase every time, so one process's
  times cluster near one value. Before each press a random pause of 0 to
  JITTER ms (seeded; outside the timed span) spreads the keys over the
  phases, and the fresh pairs give several frame clocks per side;
- resident memory: VmRSS of fresh pairs after one menu each.

MENU_SAMPLES 0 skips the menus, RSS_RUNS 0 the memory.

Prints lines `NAME value...` for the shell script: menu-without /
menu-with (ms), key-without-P / key-with-P (ms, pair P from 1) and
key-first-P (the label started first), rss-without / rss-with (KiB),
`module-loaded without=no with=yes` (libim-menubus.so in /proc/PID/maps, of
the first pair; every pair is checked and a wrong one fails the run), and
`stack-pages-again without=N with=N`: how often GTK said it added a
popover's submenu page again ("duplicate child name in GtkStack") during
the menus.
"""

import argparse
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from Xlib import X, XK, display as xdisplay
from Xlib.ext import damage

SENTENCE = "the quick brown fox"
MODULE_FILE = "libim-menubus.so"


def log(*parts):
    print("gtk4-im:", *parts, file=sys.stderr, flush=True)


class Failure(Exception):
    pass


class Screen:
    """One connection to the X server: XTest input, the root window's map
    notifications and the damage of the apps' windows."""

    def __init__(self):
        self.display = xdisplay.Display()
        for extension in ("XTEST", "DAMAGE"):
            if not self.display.has_extension(extension):
                raise Failure("the X server has no %s extension" % extension)
        self.display.damage_query_version()
        self.root = self.display.screen().root
        self.root.change_attributes(event_mask=X.SubstructureNotifyMask)
        self.display.sync()
        self.damage_event = self.display.extension_event.DamageNotify

    def keycode(self, name):
        return self.display.keysym_to_keycode(XK.string_to_keysym(name))

    def press(self, *names):
        codes = [self.keycode(name) for name in names]
        for code in codes:
            self.display.xtest_fake_input(X.KeyPress, code)
        for code in reversed(codes):
            self.display.xtest_fake_input(X.KeyRelease, code)
        self.display.flush()

    def drain(self):
        while self.display.pending_events():
            self.display.next_event()

    def wait_event(self, accept, timeout):
        deadline = time.monotonic() + timeout
        while True:
            while self.display.pending_events():
                event = self.display.next_event()
                if accept(event):
                    return event, time.monotonic()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None, None
            select.select([self.display.fileno()], [], [], remaining)
            self.display.pending_events()

    def watch_damage(self, window_id):
        """A damage object on the window; its events arrive from now on."""
        window = self.display.create_resource_object("window", window_id)
        handle = window.damage_create(damage.DamageReportNonEmpty)
        self.display.sync()
        return handle

    def quiet(self, handle, settle):
        """Waits until the window has been still for `settle` seconds, then
        resets its damage, so the next DamageNotify is a new frame's."""
        while True:
            event, _ = self.wait_event(lambda e: e.type == self.damage_event, settle)
            self.display.damage_subtract(handle)
            self.display.sync()
            if event is None:
                self.drain()
                return

    def type_drawn(self, handle, letter, timeout=5):
        """A letter, timed from its press to the window's next damage."""
        code = self.keycode(letter)
        started = time.monotonic()
        self.display.xtest_fake_input(X.KeyPress, code)
        self.display.flush()
        event, drawn = self.wait_event(lambda e: e.type == self.damage_event and e.damage == handle, timeout)
        self.display.xtest_fake_input(X.KeyRelease, code)
        self.display.flush()
        if event is None:
            raise Failure("nothing was drawn within %s s of a key press" % timeout)
        return (drawn - started) * 1000.0

    def open_menu(self, timeout=5):
        """Shift+F10, timed from the F10 press to the popover's window mapped."""
        self.drain()
        shift, f10 = self.keycode("Shift_L"), self.keycode("F10")
        self.display.xtest_fake_input(X.KeyPress, shift)
        started = time.monotonic()
        self.display.xtest_fake_input(X.KeyPress, f10)
        self.display.flush()
        event, mapped = self.wait_event(lambda e: e.type == X.MapNotify and e.override and self.drawn(e.window), timeout)
        self.display.xtest_fake_input(X.KeyRelease, f10)
        self.display.xtest_fake_input(X.KeyRelease, shift)
        self.display.flush()
        if event is None:
            raise Failure("no popover window was mapped within %s s of Shift+F10" % timeout)
        return (mapped - started) * 1000.0, event.window

    def drawn(self, window):
        try:
            return window.get_attributes().win_class == X.InputOutput
        except Exception:
            return False

    def close_menu(self, window, timeout=5):
        self.press("Escape")
        event, _ = self.wait_event(lambda e: e.type == X.UnmapNotify and e.window.id == window.id, timeout)
        if event is None:
            raise Failure("the popover stayed mapped after Escape")


class Editor:
    def __init__(self, module_folder, label):
        self.label = label
        self.home = tempfile.mkdtemp(prefix="menubus-gtk4-im-")
        env = dict(os.environ)
        for variable in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[variable] = os.path.join(self.home, variable.lower())
            os.makedirs(env[variable])
        # No blinking cursor: the only frames are the ones a key causes.
        os.makedirs(os.path.join(env["XDG_CONFIG_HOME"], "gtk-4.0"))
        with open(os.path.join(env["XDG_CONFIG_HOME"], "gtk-4.0", "settings.ini"), "w") as settings:
            settings.write("[Settings]\ngtk-cursor-blink=false\n")
        env.update({"GSETTINGS_BACKEND": "memory", "LANG": "C.UTF-8", "LANGUAGE": "C", "NO_AT_BRIDGE": "1",
                    "GSK_RENDERER": "cairo", "GDK_BACKEND": "x11"})
        for variable in ("GTK_IM_MODULE", "GTK_PATH", "MENUBUS_GTK4_WRAPPED_IM"):
            env.pop(variable, None)
        # GTK's own module folder moved to an empty one, so an installed
        # libim-menubus.so (menubus-gtk4-immodule) is loaded into neither
        # editor: "without" has no module at all, "with" the built one.
        env["GTK_EXE_PREFIX"] = os.path.join(self.home, "no-modules")
        if module_folder:
            env["GTK_IM_MODULE"] = "menubus"
            env["GTK_PATH"] = module_folder
        self.stderr_path = os.path.join(self.home, "stderr")
        with open(self.stderr_path, "w") as stderr:
            self.process = subprocess.Popen(["/usr/bin/gnome-text-editor", "--standalone"], env=env,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=stderr, start_new_session=True)
        result = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(self.process.pid)],
                                capture_output=True, text=True, timeout=30)
        windows = result.stdout.split()
        if not windows:
            self.stop()
            raise Failure("gnome-text-editor (%s) showed no window" % label)
        self.window = int(windows[-1])
        self.damage = None

    def focus(self, settle):
        subprocess.run(["xdotool", "windowfocus", "--sync", str(self.window)], check=True, timeout=10)
        time.sleep(settle)

    def type_and_select(self):
        subprocess.run(["xdotool", "type", "--delay", "12", SENTENCE], check=True, timeout=30)
        subprocess.run(["xdotool", "key", "ctrl+shift+Left"], check=True, timeout=10)

    def stack_pages_again(self):
        with open(self.stderr_path, errors="replace") as stderr:
            return sum("duplicate child name in GtkStack" in line for line in stderr)

    def has_module(self):
        with open("/proc/%d/maps" % self.process.pid) as maps:
            return any(line.rstrip().endswith("/" + MODULE_FILE) for line in maps)

    def rss_kib(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Failure("no VmRSS for gnome-text-editor")

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.home, ignore_errors=True)


def keys(screen, apps, samples, settle, rng, jitter_ms):
    """`samples` letters each, alternating; the window still, then a random
    pause of 0 to `jitter_ms`, before each."""
    times = {app.label: [] for app in apps}
    for app in apps:
        app.focus(settle)
        subprocess.run(["xdotool", "key", "End", "Return"], check=True, timeout=10)
        app.damage = screen.watch_damage(app.window)
    for index in range(samples):
        letter = "abcdefghijklmnopqrstuvwxyz"[index % 26]
        for app in apps:
            app.focus(0)
            screen.quiet(app.damage, settle)
            if jitter_ms > 0:
                time.sleep(rng.uniform(0, jitter_ms) / 1000.0)
            times[app.label].append(screen.type_drawn(app.damage, letter))
    return times


def check_module(apps):
    """Raises unless only the app labelled "with" has the module mapped;
    returns the `module-loaded` line."""
    loaded = {app.label: app.has_module() for app in apps}
    if loaded.get("with") is not True or loaded.get("without") is not False:
        raise Failure("libim-menubus.so mapped: %s" % loaded)
    return "module-loaded %s" % " ".join("%s=%s" % (app.label, "yes" if loaded[app.label] else "no")
                                         for app in sorted(apps, key=lambda app: app.label != "without"))


def key_pairs(screen, module_folder, pairs, samples, settle, rng, jitter_ms, print_module):
    """`pairs` fresh pairs, the first started alternating (without first in
    pair 1); `samples` letters each app of a pair."""
    for pair in range(1, pairs + 1):
        order = [(None, "without"), (module_folder, "with")]
        if pair % 2 == 0:
            order.reverse()
        apps = []
        try:
            for folder, label in order:
                apps.append(Editor(folder, label))
            for app in apps:
                # As a menu's user would: the sentence typed, a word
                # selected and the context menu opened once (unmeasured),
                # so the module holds its section when the keys come.
                app.focus(settle)
                app.type_and_select()
                time.sleep(settle)
                _, window = screen.open_menu()
                screen.close_menu(window)
            line = check_module(apps)
            if print_module and pair == 1:
                print(line, flush=True)
            print("key-first-%d %s" % (pair, apps[0].label), flush=True)
            for name, values in keys(screen, apps, samples, settle, rng, jitter_ms).items():
                print("key-%s-%d %s" % (name, pair, " ".join("%.2f" % v for v in values)), flush=True)
        finally:
            for app in apps:
                app.stop()


def menus(screen, apps, samples, settle):
    """`samples` menus each after one unmeasured, alternating; the
    selection changes before each (Shift+Left, Shift+Right in turn)."""
    times = {app.label: [] for app in apps}
    for app in apps:
        app.focus(settle)
        app.type_and_select()
    missed = 0
    for round_index in range(samples + 1):
        for app in apps:
            for attempt in range(2):
                app.focus(0)
                screen.press("Shift_L", "Left" if round_index % 2 == 0 else "Right")
                time.sleep(settle)
                try:
                    milliseconds, window = screen.open_menu()
                    break
                except Failure:
                    # A key that reached the window before GTK took the
                    # focus: counted, and the menu asked for once more.
                    if attempt == 1:
                        raise
                    missed += 1
                    screen.press("Escape")
                    time.sleep(settle)
            screen.close_menu(window)
            if round_index > 0:
                times[app.label].append(milliseconds)
    print("menu-missed %d" % missed, flush=True)
    return times


def measure_rss(screen, module_folder, runs, settle):
    rss = {"without": [], "with": []}
    for _ in range(runs):
        for folder, label in ((None, "without"), (module_folder, "with")):
            app = Editor(folder, label)
            try:
                app.focus(settle)
                app.type_and_select()
                time.sleep(settle)
                _, window = screen.open_menu()
                screen.close_menu(window)
                rss[label].append(app.rss_kib())
            finally:
                app.stop()
    return rss


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=50, help="key presses per app of each pair")
    parser.add_argument("--key-pairs", type=int, default=6, help="fresh pairs of apps for the keys")
    parser.add_argument("--jitter", type=float, default=16.7,
                        help="ms: the longest random pause before a key press (0: none)")
    parser.add_argument("--seed", type=int, default=40, help="of the random pauses")
    parser.add_argument("--menu-samples", type=int, default=30, help="menus per app (0: no menus)")
    parser.add_argument("--rss-runs", type=int, default=5, help="pairs for memory (0: none)")
    parser.add_argument("--module-folder", required=True, help="GTK_PATH holding 4.0.0/immodules/" + MODULE_FILE)
    parser.add_argument("--settle", type=float, default=0.15,
                        help="seconds of stillness before each key and after each selection change, outside the timed span")
    options = parser.parse_args()

    screen = Screen()
    apps = []
    try:
        if options.menu_samples > 0:
            apps = [Editor(None, "without"), Editor(options.module_folder, "with")]
            for app in apps:
                app.focus(options.settle)
            print(check_module(apps), flush=True)
            for name, values in menus(screen, apps, options.menu_samples, options.settle).items():
                print("menu-%s %s" % (name, " ".join("%.2f" % v for v in values)), flush=True)
            print("stack-pages-again %s" % " ".join("%s=%d" % (app.label, app.stack_pages_again()) for app in apps),
                  flush=True)
            for app in apps:
                app.stop()
            apps = []
        key_pairs(screen, options.module_folder, options.key_pairs, options.samples, options.settle,
                  random.Random(options.seed), options.jitter, options.menu_samples <= 0)
        if options.rss_runs > 0:
            for name, values in measure_rss(screen, options.module_folder, options.rss_runs, options.settle).items():
                print("rss-%s %s" % (name, " ".join(str(v) for v in values)), flush=True)
    except Failure as error:
        log(error)
        return 1
    finally:
        for app in apps:
            app.stop()
    return 0

if __name__ == "__main__":
    sys.exit(main())
