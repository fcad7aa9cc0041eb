"""gtk_app.py's programs under a headless Wayland compositor (gtk_app.py
--wayland): sway, started for the session as nobody (sway refuses to run
as root) with a configuration of its own (no bar, no Xwayland, one output
of a fixed size), and one virtual keyboard (Tests/wayland/mb-vkbd, built by
`make wayland-helpers`) that every key and every typed character goes
through, with one keymap for the whole run.

The program gets WAYLAND_DISPLAY as the full path of sway's socket,
GDK_BACKEND=wayland, QT_QPA_PLATFORM=wayland and no DISPLAY. There is no
XTest: a right click becomes the Menu key. With MENUBUS_WAYLAND_POINTER=1
the seat has a virtual pointer (Tests/wayland/mb-vptr) from before the
program starts, which moves, clicks (button 1) and turns the wheel at the
points AT-SPI gives: the program's one window fills the output from (0, 0)
with no border, so its coordinates are the output's. Without it there is
no pointer, and a move does nothing. Window
activation is sway's own (the program's frame is ACTIVE through AT-SPI
once sway gave it the keyboard). Everything is read through AT-SPI as
under X11.
"""

import ctypes
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SWAY = "/usr/bin/sway"
SWAYMSG = "/usr/bin/swaymsg"
SETPRIV = "/usr/bin/setpriv"
# sway runs as nobody; the programs (as root here) reach it by its socket's path.
NOBODY = 65534
KEYBOARD = os.environ.get("MENUBUS_VKBD") or os.path.join(HERE, "..", "..", ".build", "wayland", "mb-vkbd")
POINTER = os.path.join(HERE, "..", "..", ".build", "wayland", "mb-vptr")
# Large enough that Qt 5, which cuts a long menu at the screen's bottom,
# shows the items the tests read.
OUTPUT_SIZE = (1280, 1024)

CONFIG = """\
xwayland disable
output * mode {width}x{height} position 0 0
default_border none
default_floating_border none
focus_on_window_activation focus
"""


def requirements():
    """(path, Debian package) of what a Wayland session needs."""
    return [(SWAY, "sway"), (SWAYMSG, "sway"), (SETPRIV, "util-linux"),
            (KEYBOARD, "the virtual keyboard helper: run `make wayland-helpers`")]


def die_with_parent():
    """For preexec_fn: the child gets SIGTERM when the driver dies."""
    def set_signal():
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    return set_signal


def poll(condition, timeout, interval=0.01):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class Compositor:
    """sway, headless, as nobody, in a runtime folder it owns."""

    def __init__(self, spawn, failure, timeout):
        self.spawn = spawn
        self.failure = failure
        self.timeout = timeout
        # In /tmp, whatever TMPDIR says: the path of sway's IPC socket
        # (sway-ipc.UID.PID.sock) must fit a socket address's 108 bytes.
        self.runtime = tempfile.mkdtemp(prefix="mb-sway-", dir="/tmp")
        os.chmod(self.runtime, 0o700)
        os.chown(self.runtime, NOBODY, NOBODY)
        self.config = os.path.join(self.runtime, "config")
        with open(self.config, "w") as config:
            config.write(CONFIG.format(width=OUTPUT_SIZE[0], height=OUTPUT_SIZE[1]))
        os.chown(self.config, NOBODY, NOBODY)
        self.process = None
        self.socket = None
        self.ipc = None

    def start(self):
        env = {"PATH": "/usr/bin:/bin", "HOME": self.runtime, "XDG_RUNTIME_DIR": self.runtime,
               "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
               "WLR_HEADLESS_OUTPUTS": "1", "LANG": "C.UTF-8"}
        # setpriv keeps the death signal across the change of user (Linux
        # clears it then): sway ends with the driver.
        self.process = self.spawn([SETPRIV, "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
                                   "--pdeathsig", "TERM", SWAY, "--config", self.config], env)

        def sockets():
            if self.process.poll() is not None:
                raise self.failure("sway exited with %s before it listened" % self.process.returncode)
            names = os.listdir(self.runtime)
            wayland = [name for name in names if name.startswith("wayland-") and not name.endswith(".lock")]
            ipc = [name for name in names if name.startswith("sway-ipc.") and name.endswith(".sock")]
            if wayland and ipc:
                return os.path.join(self.runtime, wayland[0]), os.path.join(self.runtime, ipc[0])
            return None

        found = poll(sockets, self.timeout, 0.02)
        if not found:
            raise self.failure("sway made no Wayland socket in %s within %s s" % (self.runtime, self.timeout))
        self.socket, self.ipc = found

    def message(self, *command):
        """A sway command through its IPC socket; its output."""
        result = subprocess.run([SWAYMSG, "--socket", self.ipc, *command], capture_output=True, text=True,
                                timeout=self.timeout)
        if result.returncode != 0:
            raise self.failure("swaymsg %s failed: %s" % (" ".join(command), (result.stdout + result.stderr).strip()))
        return result.stdout

    def remove(self):
        shutil.rmtree(self.runtime, ignore_errors=True)


class VirtualKeyboard:
    """Tests/wayland/mb-vkbd on the compositor's seat: one command a line,
    "ok" or "error WHY" back."""

    def __init__(self, socket, failure, timeout):
        self.failure = failure
        self.timeout = timeout
        env = {"PATH": "/usr/bin:/bin", "WAYLAND_DISPLAY": socket}
        if os.environ.get("XKB_DEFAULT_LAYOUT"):
            env["XKB_DEFAULT_LAYOUT"] = os.environ["XKB_DEFAULT_LAYOUT"]
        self.process = subprocess.Popen([KEYBOARD], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=sys.stderr, start_new_session=True, preexec_fn=die_with_parent(),
                                        bufsize=0)
        self.pending = b""
        answer = self.read_line()
        if answer != "ready":
            raise failure("the virtual keyboard did not start: %r" % answer)

    def read_line(self):
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self.failure("the virtual keyboard gave no answer within %s s" % self.timeout)
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 4096)
                if not chunk:
                    raise self.failure("the virtual keyboard exited with %s" % self.process.wait(timeout=5))
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode()

    def send(self, command):
        if "\n" in command:
            raise self.failure("the virtual keyboard takes one line: %r" % command)
        try:
            self.process.stdin.write((command + "\n").encode())
        except BrokenPipeError:
            raise self.failure("the virtual keyboard exited with %s" % self.process.poll())
        answer = self.read_line()
        if answer != "ok":
            raise self.failure("virtual keyboard: %s: %s" % (command, answer))

    def quit(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b"quit\n")
                self.process.stdin.close()
                self.process.wait(timeout=2)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                pass


class VirtualPointer(VirtualKeyboard):
    """Tests/wayland/mb-vptr on the compositor's seat, as the keyboard:
    move X Y, click N, wheel N."""

    def __init__(self, socket, failure, timeout):
        self.failure = failure
        self.timeout = timeout
        env = {"PATH": "/usr/bin:/bin", "WAYLAND_DISPLAY": socket}
        self.process = subprocess.Popen([POINTER, str(OUTPUT_SIZE[0]), str(OUTPUT_SIZE[1])], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr,
                                        start_new_session=True, preexec_fn=die_with_parent(), bufsize=0)
        self.pending = b""
        answer = self.read_line()
        if answer != "ready":
            raise failure("the virtual pointer did not start: %r" % answer)


def on_wayland(base, failure):
    """gtk_app's Session class `base` (or a subclass of it), run under sway.
    `failure`: the driver's exception for a failed command."""

    class WaylandSession(base):
        def __init__(self, *arguments, **options):
            super().__init__(*arguments, **options)
            for env in (self.env, self.app_env):
                for variable in ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"):
                    env.pop(variable, None)
            os.environ.pop("DISPLAY", None)
            self.app_env["GDK_BACKEND"] = "wayland"
            self.app_env["QT_QPA_PLATFORM"] = "wayland"
            # Qt's Wayland decorations (bradient) would sit above the
            # window's top: none, as under X11 without a window manager.
            self.app_env["QT_WAYLAND_DISABLE_WINDOWDECORATION"] = "1"
            self.compositor = None
            self.keyboard = None
            self.pointer = None

        def start(self):
            started = time.monotonic()
            self.compositor = Compositor(self.spawn, failure, self.timeout)
            self.compositor.start()
            self.timings["sway_ms"] = round((time.monotonic() - started) * 1000, 1)
            # The keyboard before the program: headless sway activates no
            # window while its seat has no keyboard.
            self.keyboard = VirtualKeyboard(self.compositor.socket, failure, self.timeout)
            self.processes.append(self.keyboard.process)
            # The pointer too: a client reads the seat's pointer when it
            # starts; one added later may miss its first events.
            if os.environ.get("MENUBUS_WAYLAND_POINTER") == "1":
                self.pointer = VirtualPointer(self.compositor.socket, failure, self.timeout)
                self.processes.append(self.pointer.process)
            for env in (self.env, self.app_env):
                env["WAYLAND_DISPLAY"] = self.compositor.socket
            self.timings["keyboard_ms"] = round((time.monotonic() - started) * 1000, 1)
            super().start()

        def publish_bus_on_root_window(self):
            """No X server: Qt finds the accessibility bus through the session bus."""

        def x_window(self):
            """sway's id of the program's window (its view, by process id)."""
            import json
            tree = json.loads(self.compositor.message("-t", "get_tree"))
            stack = [tree]
            while stack:
                node = stack.pop()
                if node.get("pid") == self.process.pid and node.get("visible"):
                    return str(node["id"])
                stack.extend(node.get("nodes", []) + node.get("floating_nodes", []))
            return None

        def activate_window(self):
            """sway gives the new window the keyboard itself; the window is
            active once the toolkit says so (AT-SPI's ACTIVE on its frame).
            If it is not, it is focused through sway's IPC."""
            from pyatspi import STATE_ACTIVE
            active = lambda: self.frame.getState().contains(STATE_ACTIVE)  # noqa: E731
            if poll(active, min(self.timeout, 3), 0.02):
                return
            self.compositor.message("[con_id=%s]" % self.window, "focus")
            if not poll(active, self.timeout, 0.02):
                raise failure("%s's window did not become active under sway" % self.app_name)

        def point(self, command):
            """A command of the virtual pointer; a move without one does nothing."""
            if self.pointer is not None:
                return self.pointer.send(command)
            if command.startswith("move"):
                return None
            raise failure("no pointer under this Wayland session (MENUBUS_WAYLAND_POINTER=1 gives one): %s" % command)

        def xdotool(self, *arguments):
            """xdotool's commands as the virtual keyboard's and pointer's:
            key, type, mousemove, click (button 1, the wheel's 4 and 5); a
            right click becomes the Menu key."""
            verb, rest = arguments[0], list(arguments[1:])
            if verb == "key":
                keys = [key for key in rest if not key.startswith("--")]
                return self.keyboard.send("key " + " ".join(keys))
            if verb == "type":
                text = rest[rest.index("--") + 1] if "--" in rest else rest[-1]
                return self.keyboard.send("type " + text)
            if verb == "windowfocus":
                return self.activate_window()
            if verb == "mousemove":
                x, y = [value for value in rest if not value.startswith("--")][-2:]
                return self.point("move %s %s" % (x, y))
            if verb == "click" and rest == ["3"]:
                return self.keyboard.send("key Menu")
            if verb == "click" and rest[-1] in ("1", "4", "5"):
                times = int(rest[rest.index("--repeat") + 1]) if "--repeat" in rest else 1
                for _ in range(times):
                    self.point("click 1" if rest[-1] == "1" else "wheel %d" % (1 if rest[-1] == "5" else -1))
                return None
            raise failure("xdotool %s: not served under Wayland" % " ".join(arguments))

        def stop(self):
            if self.keyboard is not None:
                self.keyboard.quit()
            if self.pointer is not None:
                self.pointer.quit()
            try:
                super().stop()
            finally:
                if self.compositor is not None:
                    self.compositor.remove()

    WaylandSession.__name__ = "Wayland" + base.__name__
    return WaylandSession
