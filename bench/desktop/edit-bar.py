#!/usr/bin/python3
"""The time from a selection made with the pointer to the GTK 3 module's
edit bar drawn on screen, in mousepad, measured at the X server.

Run by bench/desktop/edit-bar.sh under xvfb-run, on a private session bus
where menubusd runs. One mousepad with GTK_MODULES=menubus and the bar on
([Edit Bar] Enabled=true in an integration.conf of XDG_CONFIG_DIRS) gets a
sentence typed; where its first word is drawn is found by comparing the
window's pixels before and after typing. Each sample is a double-click on
that word through XTest (press, release, 80 ms, press, release), timed from
the second release until the pixels in a strip above or below the word's
line differ from what they were before (polled with GetImage every ms):
the bar's popover drawn. A GTK 3 popover is a client-side child window
of the toplevel, so no MapNotify tells of it; the pixels do. Escape closes
it and the strips are read back to what they were before the next sample.
The same run times Shift+F10 to the context menu's window mapped (the
helpers of bench/desktop/gtk-menu.py), the same mousepad's menu.

EDIT_BAR_SCREENSHOT=PATH saves the screen with the first bar (ImageMagick's
import), to see where it was drawn.

Prints lines `NAME value...` (milliseconds) for the shell script:
    bar (second release to the bar drawn), menu (Shift+F10 to the menu mapped),
    first-bar (the first bar, not among the samples).
"""

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time

from Xlib import X

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gtk_menu", os.path.join(HERE, "gtk-menu.py"))
gtk_menu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gtk_menu)
Failure, Mousepad, Screen = gtk_menu.Failure, gtk_menu.Mousepad, gtk_menu.Screen

STRIP = 56  # pixels above and below the word's line where the bar shows


def log(*parts):
    print("edit-bar:", *parts, file=sys.stderr, flush=True)


def pixels(screen, box):
    x, y, width, height = box
    return screen.root.get_image(x, y, width, height, X.ZPixmap, 0xFFFFFFFF).data


def window_box(app):
    geometry = gtk_menu.subprocess.run(["xdotool", "getwindowgeometry", "--shell", app.window], capture_output=True,
                                       text=True, check=True, timeout=10).stdout
    values = dict(line.split("=", 1) for line in geometry.split())
    return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])


def changed_box(before, after, box, bytes_per_pixel=4):
    """The bounding box (screen coordinates) of the pixels that differ."""
    x0, y0, width, height = box
    stride = len(before) // height
    rows = [y for y in range(height) if before[y * stride:(y + 1) * stride] != after[y * stride:(y + 1) * stride]]
    if not rows:
        return None
    columns = [x for x in range(width) for y in rows
               if before[y * stride + x * bytes_per_pixel:y * stride + (x + 1) * bytes_per_pixel]
               != after[y * stride + x * bytes_per_pixel:y * stride + (x + 1) * bytes_per_pixel]]
    return x0 + min(columns), y0 + rows[0], max(columns) - min(columns) + 1, rows[-1] - rows[0] + 1


def settle_pixels(screen, box, quiet=0.25, timeout=5):
    """The box's pixels once they stayed the same for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last, since = pixels(screen, box), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.02)
        now = pixels(screen, box)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
    raise Failure("the window's pixels did not settle")


class Word:
    """Where the first word is, and the strips above and below its line."""

    def __init__(self, screen, app, settle):
        box = window_box(app)
        app.focus(settle)
        # A first edit marks the document modified (its title and tab change), so
        # that typing the sentence then changes the text's pixels alone.
        gtk_menu.subprocess.run(["xdotool", "key", "x", "BackSpace"], check=True, timeout=10)
        before = settle_pixels(screen, box)
        gtk_menu.subprocess.run(["xdotool", "type", "--delay", "12", gtk_menu.SENTENCE], check=True, timeout=30)
        # Away from the text: the caret blinks no more in the comparison.
        gtk_menu.subprocess.run(["xdotool", "key", "Home"], check=True, timeout=10)
        text = changed_box(before, settle_pixels(screen, box), box)
        if text is None:
            raise Failure("typing changed no pixels")
        x, y, width, height = text
        self.x, self.y = x + 8, y + height // 2
        left = max(box[0], x - 200)
        top = max(box[1], y - 8 - STRIP)
        self.strips = [(left, top, 600, y - 8 - top), (left, y + height + 8, 600, STRIP)]
        log("the sentence is drawn at %s; double-clicks at (%d, %d)" % (text, self.x, self.y))

    def read(self, screen):
        return [pixels(screen, strip) for strip in self.strips]


def double_click(screen, x, y):
    """Press, release, 80 ms, press, release; the time of the second release."""
    display = screen.display
    display.xtest_fake_input(X.MotionNotify, x=x, y=y)
    display.xtest_fake_input(X.ButtonPress, 1)
    display.xtest_fake_input(X.ButtonRelease, 1)
    display.sync()
    time.sleep(0.08)
    display.xtest_fake_input(X.ButtonPress, 1)
    display.sync()
    display.xtest_fake_input(X.ButtonRelease, 1)
    display.sync()
    return time.monotonic()


def bar_time(screen, word, reference, timeout=3):
    """A double-click on the word, and the ms until a strip changes."""
    released = double_click(screen, word.x, word.y)
    deadline = released + timeout
    while time.monotonic() < deadline:
        if word.read(screen) != reference:
            return (time.monotonic() - released) * 1000.0
        time.sleep(0.001)
    raise Failure("no edit bar was drawn within %s s of the double-click" % timeout)


def restored(screen, word, reference, why, timeout=5):
    """Waits until the strips are as they were before any bar."""
    deadline = time.monotonic() + timeout
    while word.read(screen) != reference:
        if time.monotonic() > deadline:
            raise Failure("the strips stayed changed after %s" % why)
        time.sleep(0.01)


def close_bar(screen, word, reference):
    screen.press("Escape")
    restored(screen, word, reference, "Escape")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--gtk-path", required=True, help="GTK_PATH holding modules/libmenubus.so")
    parser.add_argument("--settle", type=float, default=0.3, help="seconds between samples, outside the timed span")
    options = parser.parse_args()

    config = tempfile.mkdtemp(prefix="menubus-edit-bar-")
    os.makedirs(os.path.join(config, "menubus"))
    with open(os.path.join(config, "menubus", "integration.conf"), "w") as conf:
        conf.write("[Edit Bar]\nEnabled=true\n")
    # Mousepad copies this environment; its own XDG_CONFIG_HOME has no [Edit Bar].
    os.environ["XDG_CONFIG_DIRS"] = config
    screen = Screen()
    app = None
    try:
        app = Mousepad(True, options.gtk_path, "with")
        if not app.has_module():
            raise Failure("the module is not loaded in mousepad")
        word = Word(screen, app, options.settle)
        reference = word.read(screen)
        first = bar_time(screen, word, reference)
        if os.environ.get("EDIT_BAR_SCREENSHOT"):
            time.sleep(0.3)
            gtk_menu.subprocess.run(["import", "-window", "root", os.environ["EDIT_BAR_SCREENSHOT"]], timeout=30)
        close_bar(screen, word, reference)
        print("first-bar %.1f" % first, flush=True)
        bars, menus = [], []
        for _ in range(options.samples):
            # No selection left, and past GTK's double-click time (400 ms)
            # since the last click: two clicks, not a third.
            screen.press("Home")
            time.sleep(max(options.settle, 0.5))
            restored(screen, word, reference, "the pause")
            bars.append(bar_time(screen, word, reference))
            time.sleep(0.1)
            close_bar(screen, word, reference)
            # The menu of the same mousepad, for the same selection.
            time.sleep(options.settle)
            ms, window = screen.open_menu()
            menus.append(ms)
            screen.close_menu(window)
            restored(screen, word, reference, "the menu closed")
        print("bar %s" % " ".join("%.1f" % v for v in bars), flush=True)
        print("menu %s" % " ".join("%.1f" % v for v in menus), flush=True)
    except Failure as error:
        log(error)
        return 1
    finally:
        if app is not None:
            app.stop()
        shutil.rmtree(config, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
