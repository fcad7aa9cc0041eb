#!/usr/bin/python3
"""One app with MenuBus's shim, driven at random against a hostile daemon.

Run by bench/hostile/run.sh under xvfb-run, on a private session bus where
nothing but bench/hostile/fake-menubusd.py (started here) owns
org.menubus.MenuBus1. The app (mousepad with the GTK 3 module, featherpad
with the Qt 5 theme, both built with AddressSanitizer and run with
libasan preloaded) is started, driven and read through AT-SPI by the
tests' driver, Tests/apps/gtk_app.py, imported here. Its search field
takes seeded random steps:

    type       a short word, replacing the selection
    select     Ctrl+Shift+Left, Shift+Home, Home, End, Shift+End
    menu       the context menu (Shift+F10 in GTK, the Menu key in Qt), then
               Escape or one of its items (the toolkit's own Cut, Copy,
               Delete, Select All, Undo, Redo; the fake's "MB ..." items;
               the junk it sends), never Paste
    undo/redo  Ctrl+Z, Ctrl+Shift+Z
    mode       the fake answers otherwise from now on (cycle, random,
               correct, only one kind of hostility)
    poke       the fake calls the app's Client object (nothing that may
               change the text)

After every step: the app is alive (else a crash, with its AddressSanitizer
report; the app is started again), the AddressSanitizer logs are empty, the
app answers an AT-SPI query (the field's caret) within 1 s, and the field's
text equals the model: the text as the chosen steps make it. Typing and
the toolkit's own Cut and Delete act on the selection read before the step;
a fake's item acts only as the fake logged it (the command it sent while the
run held its window open, and the reply); MenuBus undo (GTK) applies the
payloads the fake sent, decoded as the shim decodes them. The toolkit's
own Undo and Redo (Qt's: its undo stack is the widget's, which the run does
not model) must give back a text the field had before; one the run never
saw (Qt merges and splits its undo commands its own way) is counted as
"not compared" and becomes the model, and the next step reads the field
again before it starts (Qt's result can settle after the read).

Prints one JSON line a step to --steps and the summary to stdout:

    hostile mousepad: 10 min, 1234 steps, 0 crashes, 0 asan reports, 0 hangs (worst AT-SPI answer 0.21 s), text matched

and exits 1 when anything of that failed.
"""

import argparse
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

_spec = importlib.util.spec_from_file_location("gtk_app", os.path.join(ROOT, "Tests", "apps", "gtk_app.py"))
gtk_app = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gtk_app)
Atspi, GLib, pyatspi, Failure = gtk_app.Atspi, gtk_app.GLib, gtk_app.pyatspi, gtk_app.Failure

HANG_S = 1.0
# How long an AT-SPI query may take before the app counts as not answering
# at all (it is asked again until it answers or this many seconds pass).
GIVE_UP_S = 90
MENU_ITEMS_READ = 60
MODES = ["cycle", "cycle", "random", "correct", "correct", "correct", "only:late", "only:no-reply", "only:huge",
         "only:wrong-signature", "only:disconnect", "only:error", "only:long-titles", "only:bad-utf8"]
SAFE_OWN = {"Cut", "Copy", "Delete", "Select All", "Undo", "Redo"}
NEVER = {"Paste", "MB Paste", "Insert Emoji", "Insert Unicode control character", "Input Methods"}
# Items of featherpad's editor menu: a menu holding one opened on the
# editor, not on the field (the Menu key goes to Qt's focus widget).
OTHER_WIDGETS_ITEMS = {"Text Tabs to Spaces", "Check Spelling", "Paste Date and Time"}
SELECT_KEYS = ["ctrl+shift+Left", "shift+Home", "Home", "End", "shift+End", "ctrl+shift+Left"]
WORDS = "alpha beta gamma delta echo fox golf hotel india kilo lima mike oscar papa tango".split()


def log(*parts):
    print("hostile:", *parts, file=sys.stderr, flush=True)


class Fake:
    """fake-menubusd.py, its commands and its log."""

    def __init__(self, seed, log_path, mode):
        self.log_path = log_path
        self.offset = 0
        self.pending = []
        open(log_path, "a").close()
        self.process = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "fake-menubusd.py"), "--log", log_path, "--seed", str(seed),
             "--mode", mode], stdin=subprocess.PIPE, stdout=sys.stderr, stderr=sys.stderr, text=True,
            preexec_fn=gtk_app.die_with_parent())
        if not self.wait_for(lambda event: event["event"] == "connected", 10):
            raise Failure("fake-menubusd.py did not take org.menubus.MenuBus1")

    def events(self):
        """Events logged since the last read."""
        result = []
        with open(self.log_path) as file:
            file.seek(self.offset)
            while True:
                line = file.readline()
                if not line.endswith("\n"):
                    break
                self.offset = file.tell()
                try:
                    result.append(json.loads(line))
                except ValueError:
                    continue
        return result

    def wait_for(self, accept, timeout, into=None):
        """Reads events until one is accepted (returned) or timeout; all read
        go into `into`; those after the accepted one wait for the next read."""
        deadline = time.monotonic() + timeout
        while True:
            self.pending += self.events()
            while self.pending:
                event = self.pending.pop(0)
                if into is not None:
                    into.append(event)
                if accept(event):
                    return event
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)

    def command(self, line, into=None):
        if self.process.poll() is not None:
            raise Failure("fake-menubusd.py exited with %s" % self.process.returncode)
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        if not self.wait_for(lambda event: event["event"] == "ack" and event["command"] == line, 10, into):
            raise Failure("fake-menubusd.py did not take %r" % line)

    def stop(self):
        try:
            self.process.stdin.write("quit\n")
            self.process.stdin.flush()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.process.kill()
            self.process.wait()


def apply_edits(text, payloads):
    """The shim's undo: each payload's edits ('i' or 'd', offset and byte
    length little-endian, then the text) in order; a payload that is not
    one of the shim's, and then the whole answer, is left out; an edit past
    the text's end stops the rest (the GTK module's field_apply)."""
    edits = []
    for payload in payloads:
        data = bytes.fromhex(payload)
        at = 0
        while at < len(data):
            if len(data) - at < 9 or data[at] not in b"id":
                return text
            offset = int.from_bytes(data[at + 1:at + 5], "little")
            length = int.from_bytes(data[at + 5:at + 9], "little")
            if length > len(data) - at - 9:
                return text
            try:
                piece = data[at + 9:at + 9 + length].decode("utf-8")
            except UnicodeDecodeError:
                return text
            edits.append((data[at] == ord("i"), offset, piece))
            at += 9 + length
    for insert, offset, piece in edits:
        if offset > len(text):
            break
        if insert:
            text = text[:offset] + piece + text[offset:]
        else:
            text = text[:offset] + text[min(offset + len(piece), len(text)):]
    return text


class Run:
    def __init__(self, options):
        self.options = options
        self.rng = random.Random(options.seed)
        self.qt = options.app == "featherpad"
        self.out = options.out
        self.asan_dir = os.path.join(self.out, "asan")
        os.makedirs(self.asan_dir, exist_ok=True)
        self.steps_file = open(os.path.join(self.out, "steps.jsonl"), "w", buffering=1)
        self.fake = Fake(options.seed, os.path.join(self.out, "fake.jsonl"), options.mode)
        self.session = None
        self.field = None
        self.model = ""
        self.history = {""}
        self.steps = 0
        self.crashes = []
        self.hangs = 0
        self.worst = 0.0
        self.mismatches = []
        self.failed_actions = 0
        self.unverified = 0
        # The toolkit's own Undo/Redo gave a text the run never saw (Qt).
        self.own_undo_unseen = 0
        self.resync = False
        self.model_unknown = False
        self.menus_not_shown = 0
        self.other_menus = 0
        self.chosen = {}
        self.asan_seen = set()

    # MARK: the app

    def start_app(self):
        session = gtk_app.Session(self.options.app, "" if self.qt else "menubus",
                                  "" if self.qt else self.options.gtk_path, 30)
        env = session.app_env
        env["LD_PRELOAD"] = self.options.preload
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1:handle_abort=1:handle_segv=1:log_path=%s" % \
            os.path.join(self.asan_dir, "asan")
        env["MENUBUS_DEBUG"] = "1"
        if self.qt:
            env["QT_PLUGIN_PATH"] = self.options.qt_plugin_path
            env["QT_QPA_PLATFORMTHEME"] = "menubus"
        self.session = session
        session.start()
        self.check_loaded()
        session.command_focus("search")
        self.field = session.search
        self.model = session.text_of(self.field)
        self.history = {self.model}

    def check_loaded(self):
        """The shim under test is mapped into the app, or the run measures nothing."""
        wanted = self.options.qt_plugin_path if self.qt else self.options.gtk_path
        with open("/proc/%d/maps" % self.session.process.pid) as maps:
            loaded = [line.split()[-1] for line in maps if "libmenubus.so" in line]
        if not any(os.path.realpath(path).startswith(os.path.realpath(wanted)) for path in loaded):
            raise Failure("%s did not load the shim from %s (mapped: %s)" % (self.options.app, wanted, loaded))

    def stop_app(self):
        if self.session is not None:
            self.session.stop()
            self.session = None

    def alive(self):
        return self.session.process.poll() is None

    def crashed(self, where):
        code = self.session.process.poll()
        time.sleep(0.5)  # the report is written as the process dies
        reports = self.new_asan_reports()
        self.crashes.append({"step": self.steps, "where": where, "exit": code,
                             "report": reports[0] if reports else None})
        log("crash at step %d (%s): exit %s; %s" % (self.steps, where, code,
                                                    reports[0]["file"] if reports else "no AddressSanitizer report"))

    def new_asan_reports(self):
        found = []
        for name in sorted(os.listdir(self.asan_dir)):
            path = os.path.join(self.asan_dir, name)
            if path in self.asan_seen or os.path.getsize(path) == 0:
                continue
            self.asan_seen.add(path)
            with open(path, errors="replace") as file:
                text = file.read()
            found.append({"file": path, "head": "\n".join(text.splitlines()[:40])})
        return found

    # MARK: checks

    def ping(self):
        """Seconds until the app answers an AT-SPI query (the field's caret;
        the app's children when the field is gone)."""
        started = time.monotonic()
        traced = False
        while True:
            asked = time.monotonic()
            try:
                if self.field is not None:
                    self.field.queryText().caretOffset
                else:
                    self.session.app.childCount
                return time.monotonic() - started
            except NotImplementedError:
                # pyatspi's answer both to a field whose accessible is gone
                # (its bar closed) and to a query that timed out.
                if time.monotonic() - asked < 1:
                    self.field = None
                    continue
            except GLib.Error:
                pass
            if not self.alive() or time.monotonic() - started > GIVE_UP_S:
                return time.monotonic() - started
            if time.monotonic() - started > 2 and not traced:
                traced = self.trace_hang()
            time.sleep(0.05)

    def trace_hang(self):
        """Where the app's main thread is while it does not answer (gdb, when installed)."""
        if not os.path.exists("/usr/bin/gdb"):
            return True
        path = os.path.join(self.out, "hang-step-%d.txt" % self.steps)
        with open(path, "w") as file:
            subprocess.run(["/usr/bin/gdb", "-p", str(self.session.process.pid), "-batch", "-ex", "thread 1",
                            "-ex", "bt 40"], stdout=file, stderr=subprocess.STDOUT, timeout=60, check=False)
        log("hang at step %d: the app's stack is in %s" % (self.steps, path))
        return True

    def text(self):
        if self.field is None:
            self.refocus()
        return self.session.text_of(self.field)

    def refocus(self):
        # A menu left open (one that took long to show) would take the keys.
        if self.session.popup() is not None:
            self.close_menu()
        self.session.search = None
        self.session.command_focus("search")
        self.field = self.session.search

    def selection(self):
        if self.field is None:
            self.refocus()
        result = self.session.selection_of(self.field)
        return result["start"], result["end"]

    def stable_text(self, still=0.6, timeout=4.0):
        """The field's text once it has not changed for `still` seconds (a
        toolkit's own undo or redo, whose result the run does not know)."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            try:
                now = self.text()
            except (GLib.Error, Failure, NotImplementedError):
                now = None
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= still:
                break
            time.sleep(0.05)
        return last

    def settle_text(self, expected, timeout=2.0):
        """The field's text once it equals `expected` or stops changing."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                last = self.text()
            except (GLib.Error, Failure, NotImplementedError):
                pass
            if last == expected or time.monotonic() >= deadline:
                return last
            time.sleep(0.03)

    # MARK: steps

    def type_word(self):
        start, end = self.selection()
        word = self.rng.choice(WORDS)[: self.rng.randint(1, 5)]
        if self.rng.random() < 0.3:
            word = " " + word
        self.session.xdotool("type", "--delay", "12", "--", word)
        # Each key's text: a toolkit's own undo may go back to any of them.
        for typed in range(len(word) + 1):
            self.history.add(self.model[:start] + word[:typed] + self.model[end:])
        return self.model[:start] + word + self.model[end:], "type %r over %d-%d" % (word, start, end)

    def select(self):
        key = self.rng.choice(SELECT_KEYS)
        self.session.xdotool("key", key)
        return self.model, "key " + key

    def clear(self):
        self.session.xdotool("key", "End", "shift+Home", "BackSpace")
        return "", "clear"

    def read_menu(self, menu):
        """The first items of the menu showing: (accessible, label), only
        those shown and sensitive, no submenus."""
        items = []
        try:
            count = min(menu.childCount, MENU_ITEMS_READ)
        except GLib.Error:
            return items
        for index in range(count):
            try:
                child = menu.getChildAtIndex(index)
                if child is None:
                    continue
                states = child.getState()
                role = child.getRole()
                if not states.contains(pyatspi.STATE_VISIBLE) or not states.contains(pyatspi.STATE_SENSITIVE):
                    continue
                if role == pyatspi.ROLE_MENU or child.childCount > 0:
                    continue
                if role not in (pyatspi.ROLE_MENU_ITEM, pyatspi.ROLE_CHECK_MENU_ITEM, pyatspi.ROLE_RADIO_MENU_ITEM):
                    continue
                items.append((child, gtk_app.label_of(child.name or "")))
            except GLib.Error:
                continue
        return items

    def menu(self, events):
        start, end = self.selection()
        if self.session.popup() is not None:
            self.close_menu()
        self.session.xdotool("key", "Menu" if self.qt else "shift+F10")
        menu = gtk_app.poll(self.session.popup, 5)
        if menu is None:
            self.menus_not_shown += 1
            return self.model, "menu: none showed"
        read = self.read_menu(menu)
        if any(label in OTHER_WIDGETS_ITEMS for _, label in read):
            self.close_menu()
            self.other_menus += 1
            self.field = None  # the field takes the focus again next step
            return self.model, "menu: another widget's menu opened, Escape"
        items = [(child, label) for child, label in read if label not in NEVER and label]
        if not items or self.rng.random() < 0.3:
            self.close_menu()
            return self.model, "menu: Escape (%d items read)" % len(items)
        child, label = self.rng.choice(items)
        self.chosen[label[:40]] = self.chosen.get(label[:40], 0) + 1
        self.fake.command("window open", events)
        try:
            action = child.queryAction()
            index = next((i for i in range(action.nActions) if action.getName(i) in ("click", "activate", "press")), 0)
            action.doAction(index)
        except (GLib.Error, NotImplementedError) as error:
            log("choosing %r: %s" % (label, error))
        if gtk_app.poll(lambda: self.session.popup() is None, 2) is None:
            self.close_menu()  # Qt leaves the menu open after an AT-SPI action
        # A fake's item: its Activate, the command it sent, and an undo that follows.
        activated = self.fake.wait_for(lambda event: event["event"] == "activated", 1.2, events)
        if activated and activated.get("performs"):
            self.fake.wait_for(lambda event: event["event"] in ("client-reply", "client-error")
                               and event.get("chosen"), 5, events)
            if activated["performs"] in ("undo", "redo"):
                self.fake.wait_for(lambda event: event["event"] == "call" and event["method"] in ("Undo", "Redo"),
                                   1.5, events)
                self.fake.wait_for(lambda event: False, 0.2, events)
        self.fake.command("window close", events)
        described = "menu: chose %r over %d-%d" % (label, start, end)
        if activated is not None:
            return self.after_fake(events, start, end), described + " (MenuBus's, %s)" % activated.get("performs")
        if label.startswith("MB ") or label not in SAFE_OWN:
            return self.after_fake(events, start, end), described + " (MenuBus's, not activated in time)"
        if label in ("Cut", "Delete"):
            return self.model[:start] + self.model[end:], described
        if label in ("Undo", "Redo"):
            return None, described  # the toolkit's own undo: a text the field had
        return self.model, described

    def after_fake(self, events, start, end):
        """The model after what the fake logged while the window was open."""
        text = self.model
        for event in events:
            if event["event"] == "client-reply" and event.get("chosen"):
                command = event.get("command")
                if command in ("cut", "delete"):
                    text = text[:start] + text[end:]
                elif command == "replace-selection":
                    text = text[:start] + event["text"] + text[end:]
                    start, end = start, start + len(event["text"])
            elif event["event"] == "undo-moved":
                text = apply_edits(text, event["payloads"])
        return text

    def close_menu(self):
        if self.session.popup() is None:
            return
        self.session.xdotool("key", "Escape")
        if gtk_app.poll(lambda: self.session.popup() is None, 5) is None:
            raise Failure("the menu stayed open after Escape")

    def undo(self, events, redo):
        key = "ctrl+shift+z" if redo else "ctrl+z"
        if self.qt:
            self.session.xdotool("key", key)
            return None, "key " + key
        self.fake.command("window open", events)
        self.session.xdotool("key", key)
        call = self.fake.wait_for(lambda event: event["event"] == "call" and event["method"] in ("Undo", "Redo"),
                                  1.2, events)
        if call is not None:
            self.fake.wait_for(lambda event: False, 0.2, events)
        self.fake.command("window close", events)
        return apply_edits_from(self.model, events), "key %s (%s)" % (key, call["behaviour"] if call else "no call")

    def mode(self, events):
        mode = self.rng.choice(MODES)
        self.fake.command("mode " + mode, events)
        return self.model, "mode " + mode

    def poke(self, events):
        self.fake.command("poke" if self.qt else "poke undo", events)
        self.fake.wait_for(lambda event: False, 0.4, events)
        return self.model, "poke"

    def step(self):
        events = []
        if len(self.model) > 40:
            action = self.clear
        else:
            action = self.rng.choices(
                [self.type_word, self.select, lambda: self.menu(events), lambda: self.undo(events, False),
                 lambda: self.undo(events, True), lambda: self.mode(events), lambda: self.poke(events)],
                weights=[25, 14, 28, 9, 5, 10, 9])[0]
        expected, described = action()
        # What the fake logged meanwhile that can move text, for the step's record.
        self.step_events = [(event["event"], event.get("method") or event.get("command"), event.get("behaviour"),
                             event.get("payloads")) for event in events
                            if event["event"] in ("undo-moved", "activated", "client-reply", "client-error")
                            or (event["event"] == "call" and event.get("method") in ("Undo", "Redo", "Activate"))]
        return expected, described

    def one_step(self):
        self.steps += 1
        self.step_events = []
        record = {"step": self.steps, "t": round(time.time(), 3), "model": self.model}
        try:
            if self.session.popup() is not None:
                self.close_menu()  # one that showed after its step gave up on it
            if not self.field_ready():
                self.refocus()
            if self.resync:
                # After the toolkit's own undo: the text as it settled.
                self.resync = False
                settled = self.stable_text()
                if settled is not None and settled != self.model:
                    record["settled"] = settled
                    self.model = settled
                    self.history.add(settled)
                    record["model"] = settled
                # Qt's accessible text can lag its own undo (read empty with
                # the caret past it): then the text before this step is not
                # known, and the step is not compared.
                if settled is not None and max(self.selection()) > len(settled):
                    record["not_compared"] = "Qt's accessible text lagged its own undo (the caret past the text read)"
                    self.model_unknown = True
            expected, record["action"] = self.step()
        except (Failure, GLib.Error, NotImplementedError) as error:
            self.failed_actions += 1
            record["error"] = str(error)[:300]
            expected = None
        if not self.alive():
            record["crash"] = True
            self.crashed(record.get("action", "?"))
            self.steps_file.write(json.dumps(record) + "\n")
            return False
        answer = self.ping()
        record["ping_s"] = round(answer, 3)
        self.worst = max(self.worst, answer)
        if answer > HANG_S:
            self.hangs += 1
            log("hang at step %d: %.2f s (%s)" % (self.steps, answer, record.get("action")))
        if answer > GIVE_UP_S and self.alive():
            # It does not answer at all: this life of the app ends here.
            record["stuck"] = True
            log("step %d: %s has not answered for %d s; stopping it" % (self.steps, self.options.app, answer))
            self.steps_file.write(json.dumps(record) + "\n")
            return False
        if not self.alive():
            record["crash"] = True
            self.crashed(record.get("action", "?"))
            self.steps_file.write(json.dumps(record) + "\n")
            return False
        reports = self.new_asan_reports()
        if reports:
            record["asan"] = [report["file"] for report in reports]
            self.crashes.append({"step": self.steps, "where": record.get("action"), "exit": None,
                                 "report": reports[0]})
        if expected is None and "error" not in record:
            actual = self.stable_text()
        else:
            actual = self.settle_text(expected if expected is not None else self.model)
        if actual is None:
            self.failed_actions += 1
            record["error"] = record.get("error", "") + " (the text could not be read)"
            self.steps_file.write(json.dumps(record) + "\n")
            return True
        if "error" in record:
            self.unverified += 1
        elif self.model_unknown:
            self.own_undo_unseen += 1
            self.resync = self.qt and expected is None
            expected = actual
        elif expected is None:
            # The toolkit's own undo: a text the field had before; Qt's may
            # give one the run never saw (not compared, counted).
            self.resync = self.qt
            if actual in self.history:
                expected = actual
            elif self.qt:
                self.own_undo_unseen += 1
                record["not_compared"] = "Qt's own undo gave a text the run never saw"
                expected = actual
            else:
                expected = self.model
        if expected is not None and actual != expected:
            self.mismatches.append({"step": self.steps, "action": record.get("action"), "expected": expected,
                                    "actual": actual})
            log("text mismatch at step %d (%s): expected %r, read %r" % (self.steps, record.get("action"),
                                                                          expected, actual))
        self.model_unknown = False
        record["text"] = actual
        if self.step_events:
            record["fake"] = self.step_events
        self.model = actual
        self.history.add(self.model)
        self.steps_file.write(json.dumps(record) + "\n")
        return True

    def field_ready(self):
        try:
            return self.field is not None and gtk_app.has_state(self.field, pyatspi.STATE_FOCUSED) \
                and gtk_app.has_state(self.field, pyatspi.STATE_SHOWING)
        except GLib.Error:
            return False

    def run(self):
        """Steps until the time is up or the app crashed: one life of the
        app (libatspi keeps its first accessibility bus, so a new app needs
        a new driver: run.sh starts one for the time left)."""
        deadline = time.monotonic() + self.options.seconds
        started = time.monotonic()
        try:
            self.start_app()
            log("%s started (pid %d)" % (self.options.app, self.session.process.pid))
            faults = 0
            while time.monotonic() < deadline:
                if self.fake.process.poll() is not None:
                    raise Failure("fake-menubusd.py exited (%s): another process took org.menubus.MenuBus1?"
                                  % self.fake.process.returncode)
                try:
                    if not self.one_step():
                        break
                    faults = 0
                except Exception as error:  # noqa: BLE001 (a fault of the run, not of the app)
                    faults += 1
                    self.failed_actions += 1
                    log("step %d: the run faulted: %r" % (self.steps, error))
                    if faults >= 10:
                        raise
        finally:
            self.stop_app()
            self.fake.stop()
        # Reports written after the last step (a crash as the app was stopped).
        for report in self.new_asan_reports():
            self.crashes.append({"step": self.steps, "where": "at exit", "exit": None, "report": report})
        return time.monotonic() - started

    def summary(self, elapsed):
        details = {"app": self.options.app, "seconds": round(elapsed, 1), "steps": self.steps,
                   "crashes": self.crashes, "hangs": self.hangs, "worst_s": round(self.worst, 3),
                   "mismatches": self.mismatches[:20], "mismatch_count": len(self.mismatches),
                   "failed_actions": self.failed_actions, "unverified_steps": self.unverified,
                   "own_undo_not_compared": self.own_undo_unseen,
                   "menus_not_shown": self.menus_not_shown,
                   "other_widgets_menus": self.other_menus,
                   "chosen": self.chosen, "seed": self.options.seed}
        with open(os.path.join(self.out, "summary.json"), "w") as file:
            json.dump(details, file, indent=1)
        return summarize(self.options.app, [details])


def summarize(app, segments):
    """The summary line of one app's segments (each one life of the app),
    and whether nothing failed."""
    seconds = sum(segment["seconds"] for segment in segments)
    crashes = [crash for segment in segments for crash in segment["crashes"]]
    exits = sum(1 for crash in crashes if crash["exit"] is not None)
    asan = sum(1 for crash in crashes if crash["report"])
    hangs = sum(segment["hangs"] for segment in segments)
    worst = max([segment["worst_s"] for segment in segments] or [0])
    mismatches = sum(segment.get("mismatch_count", len(segment["mismatches"])) for segment in segments)
    duration = "%g min" % round(seconds / 60, 1) if seconds >= 60 else "%d s" % round(seconds)
    unseen = sum(segment.get("own_undo_not_compared", 0) for segment in segments)
    line = ("hostile %s: %s, %d steps, %d crashes, %d asan reports, %d hangs (worst AT-SPI answer %.2f s), %s%s"
            % (app, duration, sum(segment["steps"] for segment in segments), exits, asan, hangs, worst,
               "text matched" if not mismatches else "text MISMATCHED %d times" % mismatches,
               " (%d steps after the toolkit's own Undo/Redo not compared)" % unseen
               if unseen else ""))
    return line, not crashes and not hangs and not mismatches


def apply_edits_from(text, events):
    for event in events:
        if event["event"] == "undo-moved":
            text = apply_edits(text, event["payloads"])
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app", choices=["mousepad", "featherpad"])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", default="cycle", help="the fake's first mode (the steps change it)")
    parser.add_argument("--out", required=True, help="a folder for the logs")
    parser.add_argument("--gtk-path", default="", help="GTK_PATH holding modules/libmenubus.so")
    parser.add_argument("--qt-plugin-path", default="", help="QT_PLUGIN_PATH holding platformthemes/libmenubus.so")
    parser.add_argument("--preload", default="", help="LD_PRELOAD of the app: libasan.so first")
    parser.add_argument("--summarize", action="store_true",
                        help="print the line of every summary.json under --out (one a segment) and exit")
    options = parser.parse_args()
    if options.summarize:
        segments = []
        for folder, _, files in sorted(os.walk(options.out)):
            if "summary.json" in files:
                with open(os.path.join(folder, "summary.json")) as file:
                    segments.append(json.load(file))
        line, ok = summarize(options.app, segments)
        print(line, flush=True)
        return 0 if ok and segments else 1
    if not os.environ.get("DISPLAY") or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        print("hostile.py: needs DISPLAY (xvfb-run) and DBUS_SESSION_BUS_ADDRESS (a private bus)", file=sys.stderr)
        return 2
    gtk_app.die_with_parent()()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    try:
        run = Run(options)
        elapsed = run.run()
        line, ok = run.summary(elapsed)
    except Exception as error:  # noqa: BLE001 (any fault of the run itself)
        # The run itself failed (not the app): status 2, not a finding.
        import traceback
        traceback.print_exc()
        print("hostile %s: the run failed: %s" % (options.app, error), flush=True)
        return 2
    print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
