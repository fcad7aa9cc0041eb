#!/usr/bin/python3
"""The time from a key press to a GTK 3 program's context menu on screen,
with and without the MenuBus GTK module, measured at the X server.

Run by bench/desktop/gtk-menu.sh under xvfb-run, on a private session bus where
menubusd runs. Two mousepads are started side by side, one with
GTK_MODULES=menubus and one without; each gets a sentence typed and its
last word selected. Then, alternating between them, Shift+F10 is sent
through XTest and the time taken until an override-redirect window (the
popup menu) is mapped on the root window (MapNotify, watched with
python3-xlib: no accessibility layer in between); Escape closes it. Only
a window that is drawn in counts: GTK 3 maps an input-only grab window
first.
Then the first menu after a SIGSTOP of menubusd, SAMPLES times: menubusd
continued (and answering), one menu of each app unmeasured, menubusd
stopped, each app's next menu timed. Then the later menus with menubusd
stopped (SIGSTOP), alternating as above, and the resident memory (VmRSS)
of fresh pairs after one menu each.

Prints lines `NAME value...` (milliseconds, pixels or KiB) for the shell script:
    running-with / running-without / stopped-with / stopped-without / rss-with / rss-without,
    first-after-stop-with / first-after-stop-without (each app's first menu after a SIGSTOP),
    CASE-first-with / CASE-first-without (the unmeasured first menu of a case),
    CASE-height-with / CASE-height-without (each popup's height),
and `module-loaded without=no with=yes` (libmenubus.so in /proc/PID/maps).
With --floor-gtk-path, a third mousepad loads the module built with
MENUBUS_BENCH_REPLAY, which shows the first menu's items again in every
later menu without asking menubusd: what GTK takes to draw MenuBus's
items, with no D-Bus (running-floor, stopped-floor, ...-height-floor).
"""

import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from Xlib import X, XK, display as xdisplay

SENTENCE = "the quick brown fox"


def log(*parts):
    print("gtk-menu:", *parts, file=sys.stderr, flush=True)


class Failure(Exception):
    pass


class Screen:
    """One connection to the X server: XTest input and the root window's
    map notifications."""

    def __init__(self):
        self.display = xdisplay.Display()
        if not self.display.has_extension("XTEST"):
            raise Failure("the X server has no XTEST extension")
        self.root = self.display.screen().root
        self.root.change_attributes(event_mask=X.SubstructureNotifyMask)
        self.display.sync()

    def keycode(self, name):
        return self.display.keysym_to_keycode(XK.string_to_keysym(name))

    def press(self, *names):
        """Presses the keys in order and releases them in reverse (a chord)."""
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
        """The first event accept() takes, within timeout seconds, and when it was read."""
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
            # Reads what arrived into the queue (pending_events does not block).
            self.display.pending_events()

    def open_menu(self, timeout=5):
        """Shift+F10, timed from the F10 press to the popup's MapNotify."""
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
            raise Failure("no popup window was mapped within %s s of Shift+F10" % timeout)
        return (mapped - started) * 1000.0, event.window

    def drawn(self, window):
        """Whether a window is one a menu is drawn in: GTK 3 also maps a
        10x10 input-only window off screen (the menu's grab transfer
        window) before the menu's own."""
        try:
            return window.get_attributes().win_class == X.InputOutput
        except Exception:
            return False

    def height(self, window):
        """The popup's height in pixels: taller when MenuBus's items are in it."""
        return window.get_geometry().height

    def close_menu(self, window, timeout=5):
        self.press("Escape")
        event, _ = self.wait_event(lambda e: e.type == X.UnmapNotify and e.window.id == window.id, timeout)
        if event is None:
            raise Failure("the popup stayed mapped after Escape")


class Mousepad:
    def __init__(self, module, gtk_path, label):
        self.label = label
        self.home = tempfile.mkdtemp(prefix="menubus-gtk-menu-")
        env = dict(os.environ)
        for variable in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[variable] = os.path.join(self.home, variable.lower())
            os.makedirs(env[variable])
        env.update({"GSETTINGS_BACKEND": "memory", "LANG": "C.UTF-8", "LANGUAGE": "C", "NO_AT_BRIDGE": "1"})
        env.pop("GTK_MODULES", None)
        if module:
            env["GTK_MODULES"] = "menubus"
            env["GTK_PATH"] = gtk_path
        self.process = subprocess.Popen(["/usr/bin/mousepad", "--disable-server"], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        result = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(self.process.pid)],
                                capture_output=True, text=True, timeout=30)
        windows = result.stdout.split()
        if not windows:
            self.stop()
            raise Failure("mousepad (%s) showed no window" % label)
        self.window = windows[-1]

    def focus(self, settle):
        """Gives the window the X focus (no window manager runs), then lets
        the focus change's own work finish outside the timed span."""
        subprocess.run(["xdotool", "windowfocus", "--sync", self.window], check=True, timeout=10)
        time.sleep(settle)

    def type_and_select(self):
        subprocess.run(["xdotool", "type", "--delay", "12", SENTENCE], check=True, timeout=30)
        subprocess.run(["xdotool", "key", "ctrl+shift+Left"], check=True, timeout=10)

    def has_module(self):
        """Whether libmenubus.so is mapped into the process."""
        with open("/proc/%d/maps" % self.process.pid) as maps:
            return any(line.rstrip().endswith("/libmenubus.so") for line in maps)

    def rss_kib(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Failure("no VmRSS for mousepad")

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.home, ignore_errors=True)


def alternate(screen, apps, samples, settle):
    """Samples of each app, alternating, after one unmeasured menu each.
    Before each, the selection changes (Shift+Left and Shift+Right in
    turn: " fox", then "fox" again), as a person's would between menus,
    so that a menu cannot be one fetched for the selection before.
    Returns the times, each app's first (unmeasured) time, and the
    popups' heights."""
    times = {app.label: [] for app in apps}
    first = {}
    heights = {app.label: [] for app in apps}
    for round_index in range(samples + 1):
        for app in apps:
            app.focus(0)
            screen.press("Shift_L", "Left" if round_index % 2 == 0 else "Right")
            time.sleep(settle)
            milliseconds, window = screen.open_menu()
            heights[app.label].append(screen.height(window))
            screen.close_menu(window)
            if round_index > 0:
                times[app.label].append(milliseconds)
            else:
                first[app.label] = milliseconds
    return times, first, heights


def menu_after_selection_change(screen, app, round_index, settle):
    """One menu of `app` after the selection changed (Shift+Left and
    Shift+Right in turn): its time and its popup's height."""
    app.focus(0)
    screen.press("Shift_L", "Left" if round_index % 2 == 0 else "Right")
    time.sleep(settle)
    milliseconds, window = screen.open_menu()
    height = screen.height(window)
    screen.close_menu(window)
    return milliseconds, height


def answers(timeout=10):
    """Waits until menubusd answers a Peer.Ping on the session bus again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = subprocess.run(["dbus-send", "--session", "--print-reply", "--reply-timeout=2000",
                                 "--dest=org.menubus.MenuBus1", "/org/menubus/MenuBus1", "org.freedesktop.DBus.Peer.Ping"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5)
        if result.returncode == 0:
            return
        time.sleep(0.05)
    raise Failure("menubusd did not answer a Ping within %s s of SIGCONT" % timeout)


def first_after_stop(screen, apps, samples, settle, pid):
    """The first menu after a SIGSTOP, `samples` times: menubusd continued,
    answering, one menu of each app (unmeasured, so that every app heard
    from it again), menubusd stopped, then each app's next menu timed.
    Leaves menubusd running. Returns the times and the popups' heights."""
    times = {app.label: [] for app in apps}
    heights = {app.label: [] for app in apps}
    try:
        for round_index in range(samples):
            for app in apps:
                menu_after_selection_change(screen, app, round_index, settle)
            os.kill(pid, signal.SIGSTOP)
            for app in apps:
                milliseconds, height = menu_after_selection_change(screen, app, round_index + 1, settle)
                times[app.label].append(milliseconds)
                heights[app.label].append(height)
            os.kill(pid, signal.SIGCONT)
            answers()
    finally:
        os.kill(pid, signal.SIGCONT)
    return times, heights


def report_first_after_stop(measured):
    times, heights = measured
    for name, values in times.items():
        print("first-after-stop-%s %s" % (name, " ".join("%.2f" % v for v in values)), flush=True)
    for name, values in heights.items():
        print("first-after-stop-height-%s %s" % (name, " ".join(str(v) for v in values)), flush=True)


def report(case, measured):
    times, first, heights = measured
    for name, values in times.items():
        print("%s-%s %s" % (case, name, " ".join("%.2f" % v for v in values)), flush=True)
    for name, value in first.items():
        print("%s-first-%s %.2f" % (case, name, value), flush=True)
    for name, values in heights.items():
        print("%s-height-%s %s" % (case, name, " ".join(str(v) for v in values)), flush=True)


def measure_rss(screen, start, runs, settle):
    """VmRSS of `runs` fresh pairs, each after one menu: `start(with, label)`
    starts the app without and with MenuBus. Prints rss-without / rss-with."""
    rss = {"without": [], "with": []}
    for _ in range(runs):
        for on, label in ((False, "without"), (True, "with")):
            app = start(on, label)
            try:
                app.focus(settle)
                app.type_and_select()
                _, window = screen.open_menu()
                screen.close_menu(window)
                rss[label].append(app.rss_kib())
            finally:
                app.stop()
    for name, values in rss.items():
        print("rss-%s %s" % (name, " ".join(str(v) for v in values)), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--rss-runs", type=int, default=5)
    parser.add_argument("--gtk-path", required=True, help="GTK_PATH holding modules/libmenubus.so")
    parser.add_argument("--floor-gtk-path",
                        help="GTK_PATH of the module built with MENUBUS_BENCH_REPLAY: a third mousepad, the floor")
    parser.add_argument("--menubusd-pid", type=int, required=True)
    parser.add_argument("--settle", type=float, default=0.15,
                        help="seconds after each focus and selection change, outside the timed span")
    options = parser.parse_args()

    screen = Screen()
    apps = []
    try:
        apps = [Mousepad(False, options.gtk_path, "without"), Mousepad(True, options.gtk_path, "with")]
        if options.floor_gtk_path:
            apps.append(Mousepad(True, options.floor_gtk_path, "floor"))
        for app in apps:
            app.focus(options.settle)
            app.type_and_select()
        print("module-loaded %s" % " ".join("%s=%s" % (app.label, "yes" if app.has_module() else "no") for app in apps),
              flush=True)
        report("running", alternate(screen, apps, options.samples, options.settle))
        report_first_after_stop(first_after_stop(screen, apps, options.samples, options.settle, options.menubusd_pid))

        os.kill(options.menubusd_pid, signal.SIGSTOP)
        try:
            stopped = alternate(screen, apps, options.samples, options.settle)
        finally:
            os.kill(options.menubusd_pid, signal.SIGCONT)
        report("stopped", stopped)
        for app in apps:
            app.stop()
        apps = []

        measure_rss(screen, lambda module, label: Mousepad(module, options.gtk_path, label), options.rss_runs,
                    options.settle)
    except Failure as error:
        log(error)
        return 1
    finally:
        for app in apps:
            app.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
