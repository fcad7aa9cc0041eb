#!/usr/bin/python3
"""The undo property test of a real field: random steps in mousepad's
search field (a GtkEntry, whose undo the MenuBus GTK 3 module keeps in
menubusd), the field read through AT-SPI after every step and compared
with a model of what it must hold.

The driver of Tests/apps/gtk_app.py (same arguments, same start-up line,
same commands) with one more command:

    undo-property SEED STEPS
        STEPS random steps chosen by random.Random(SEED): typing, BackSpace,
        Delete, caret moves and selections from the keyboard, Make Uppercase
        chosen in the context menu, Undo and Redo from the keyboard (Ctrl+Z,
        Ctrl+Shift+Z) and from the menu. After each, the field's text, caret
        and selection (AT-SPI) and its history in menubusd (GetUndoState:
        the counts and the names of the steps Undo and Redo would move) must
        become what the model says within 5 s. Answers {"steps": N, "ms": ...}
        once they did after each, or {"ok": false,
        "seed": SEED, "step": I, "steps": [...], "expected": ..., "actual":
        ...} at the first step after which it did not (the steps that led
        there are the reproducer: the same seed gives the same steps).
        Once per program: the model starts with a field nobody used.

The model holds the text, the caret and the selection as GtkEntry keeps
them, and the undo history as the module and menubusd build it:
- every user edit is recorded as the module's core records it
  (mb_field_record): a one-character insertion or deletion that starts
  where the previous one left the caret joins the typing step before it;
  any other edit (a jump, more than one character) starts a step of its
  own, and an edit of more than one character is never joined by the next;
- Make Uppercase (a provider's replace-selection) is one step of its own,
  its name the provider's title ("Make Uppercase");
- menubusd merges a registration into the step on top of the undo stack
  when their merge keys are equal (typing), and every registration clears
  the redo steps (UndoStack);
- Undo and Redo apply a step's edits (undo: inverted, newest first), move
  it between the stacks and leave the caret where the last edit applied
  left it, with no selection (field_apply). Ctrl+Z and Ctrl+Shift+Z end
  the typing run whether or not there was a step to move (the module asks
  menubusd either way); the menu has no item to choose then, and the run
  goes on.
"""

import copy
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gtk_app  # noqa: E402
from gtk_app import Failure, Session, children, has_state, label_of, now_ms, poll  # noqa: E402

import pyatspi  # noqa: E402
from gi.repository import Gio, GLib  # noqa: E402

BUS_NAME = "org.menubus.MenuBus1"
MANAGER_PATH = "/org/menubus/MenuBus1"
MANAGER = "org.menubus.MenuBus1"

# Lower case letters (Make Uppercase changes them) and a space.
ALPHABET = "abcxyz "
# The text stays short enough for the field and for a reader of a failure.
LONG = 24
# Seconds a step's outcome may take to show (an undo is a D-Bus round trip).
STEP_TIMEOUT = 5
# The steps that move a step between the undo and redo stacks.
MOVES = ("undo-key", "redo-key", "undo-menu", "redo-menu")


class Step:
    """One undo step: its name, merge key (None: merges with nothing) and
    edits, each (insert, offset, text) as the module registers them."""

    def __init__(self, name, key, edits):
        self.name = name
        self.key = key
        self.edits = list(edits)

    def describe(self):
        return {"name": self.name, "key": self.key,
                "edits": ["%s%d%r" % ("+" if insert else "-", offset, text) for insert, offset, text in self.edits]}


class Model:
    """What the field must hold: text, caret (cursor) and selection anchor
    as GtkEntry moves them, and the undo and redo stacks."""

    def __init__(self):
        self.text = ""
        self.cursor = 0
        self.anchor = 0
        self.undo = []
        self.redo = []
        self.run = 0
        self.run_end = None

    # MARK: What is read back

    def state(self):
        """The field as AT-SPI reads it, and the history as menubusd holds
        it: [undo count, redo count, undo name, redo name]."""
        start, end = self.selection()
        return {"text": self.text, "caret": self.cursor, "selection": [start, end],
                "history": [len(self.undo), len(self.redo), self.undo_name(), self.redo_name()]}

    def selection(self):
        return min(self.cursor, self.anchor), max(self.cursor, self.anchor)

    def has_selection(self):
        start, end = self.selection()
        return end > start

    def undo_name(self):
        return self.undo[-1].name if self.undo else None

    def redo_name(self):
        return self.redo[-1].name if self.redo else None

    def describe(self):
        return {"undo": [step.describe() for step in self.undo], "redo": [step.describe() for step in self.redo]}

    # MARK: The history

    def register(self, name, edits, key):
        """menubusd's UndoStack: a registration clears the redo steps and
        joins the top undo step when both have the same merge key."""
        self.redo.clear()
        if key is not None and self.undo and self.undo[-1].key == key:
            self.undo[-1].edits.extend(edits)
        else:
            self.undo.append(Step(name, key, edits))

    def record(self, insert, offset, text):
        """A user's edit, recorded as mb_field_record does."""
        chars = len(text)
        follows = self.run_end is not None and (offset == self.run_end
                                                or (not insert and offset + chars == self.run_end))
        if not follows or chars > 1:
            self.run += 1
        self.run_end = offset + chars if insert else offset
        self.register("Typing", [(insert, offset, text)], "typing-%d" % self.run)
        if chars > 1:
            self.run += 1

    def action(self, name, edits):
        """Edits made as one action (mb_field_begin_action/end_action)."""
        self.run += 1
        self.run_end = None
        self.register(name, edits, None)

    def apply(self, edits):
        """Edits applied by Undo or Redo (field_apply): the caret where the
        last one left it, no selection."""
        caret = None
        for insert, offset, text in edits:
            if offset > len(self.text):
                raise Failure("model error: an edit at %d of a text of %d characters" % (offset, len(self.text)))
            if insert:
                self.text = self.text[:offset] + text + self.text[offset:]
                caret = offset + len(text)
            else:
                if self.text[offset:offset + len(text)] != text:
                    raise Failure("model error: deleting %r at %d of %r" % (text, offset, self.text))
                self.text = self.text[:offset] + self.text[offset + len(text):]
                caret = offset
        if caret is not None:
            self.cursor = self.anchor = caret

    # MARK: Changing the text as GtkEntry does

    def delete_range(self, start, end):
        removed = self.text[start:end]
        self.text = self.text[:start] + self.text[end:]
        self.cursor = self.anchor = start
        return removed

    def delete_selection(self):
        start, end = self.selection()
        self.record(False, start, self.delete_range(start, end))

    def type_text(self, text):
        """Each character a key press: the selection goes first."""
        for character in text:
            if self.has_selection():
                self.delete_selection()
            at = self.cursor
            self.text = self.text[:at] + character + self.text[at:]
            self.cursor = self.anchor = at + 1
            self.record(True, at, character)

    def backspace(self):
        if self.has_selection():
            self.delete_selection()
        elif self.cursor > 0:
            start = self.cursor - 1
            self.record(False, start, self.delete_range(start, start + 1))

    def delete(self):
        if self.has_selection():
            self.delete_selection()
        elif self.cursor < len(self.text):
            start = self.cursor
            self.record(False, start, self.delete_range(start, start + 1))

    def move(self, key):
        """Left, Right, Home, End, with shift: the selection's cursor end
        moves, its anchor stays; without: a selection collapses to its
        start (Left) or end (Right)."""
        extend = key.startswith("shift+")
        name = key.split("+")[-1]
        start, end = self.selection()
        if not extend and end > start and name in ("Left", "Right"):
            position = start if name == "Left" else end
        elif name == "Left":
            position = max(0, self.cursor - 1)
        elif name == "Right":
            position = min(len(self.text), self.cursor + 1)
        elif name == "Home":
            position = 0
        else:
            position = len(self.text)
        self.cursor = position
        if not extend:
            self.anchor = position

    def uppercase(self):
        """Make Uppercase: the selection replaced by its upper case and the
        new text selected, one step named after the provider."""
        start, end = self.selection()
        old = self.text[start:end]
        new = old.upper()
        self.text = self.text[:start] + new + self.text[end:]
        self.anchor, self.cursor = start, start + len(new)
        self.action("Make Uppercase", [(False, start, old), (True, start, new)])

    def undo_step(self):
        self.run += 1
        self.run_end = None
        if not self.undo:
            return
        step = self.undo.pop()
        self.apply([(not insert, offset, text) for insert, offset, text in reversed(step.edits)])
        self.redo.append(step)

    def redo_step(self):
        self.run += 1
        self.run_end = None
        if not self.redo:
            return
        step = self.redo.pop()
        self.apply(step.edits)
        self.undo.append(step)


class Steps:
    """The steps of one seed, each chosen from the model's state: the
    weights keep the text short and make undo and redo frequent. Make
    Uppercase without a selection first selects, then comes next. An Undo
    or Redo whose outcome the field would not show (a step whose edits
    cancel out, the caret already where it leaves it) first moves the caret
    to an end of the text, so that its outcome shows: menubusd's history
    moves when it answers, the field a moment later, and only a change in
    the field tells that the next key comes after it."""

    KINDS = ["type", "backspace", "delete", "move", "select", "uppercase",
             "undo-key", "redo-key", "undo-menu", "redo-menu"]

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.pending = None

    def next(self, model):
        rng = self.rng
        pending, self.pending = self.pending, None
        if pending == "uppercase" and model.has_selection() or pending in MOVES:
            return pending, ""
        weights = [30 if len(model.text) < LONG else 4, 8, 6, 5, 8, 10, 10, 6, 8, 6]
        kind = rng.choices(self.KINDS, weights)[0]
        if kind == "uppercase" and not model.has_selection():
            kind = "select"
            self.pending = "uppercase"
        if kind in MOVES:
            after = self.moved(model, kind)
            if after is not None and seen(after.state()) == seen(model.state()):
                for key, position in (("Home", 0), ("End", len(model.text))):
                    if position != after.cursor:
                        self.pending = kind
                        return "move", key
                kind = "type"
        if kind == "type":
            return kind, "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 4)))
        if kind == "move":
            return kind, rng.choice(["Left", "Right", "Home", "End"])
        if kind == "select":
            key = rng.choice(["shift+Left", "shift+Left", "shift+Right", "shift+Home", "shift+End"])
            repeat = rng.randint(1, 3) if key in ("shift+Left", "shift+Right") else 1
            return kind, " ".join([key] * repeat)
        return kind, ""

    @staticmethod
    def moved(model, kind):
        """The model after Undo or Redo (`kind`); None with no step to move."""
        if not (model.undo if kind.startswith("undo") else model.redo):
            return None
        after = copy.deepcopy(model)
        after.undo_step() if kind.startswith("undo") else after.redo_step()
        return after


def seen(state):
    """What AT-SPI reads of the field in a model's state: all but the history."""
    return {key: value for key, value in state.items() if key != "history"}


class DaemonHistory:
    """The field's undo history as menubusd holds it (GetUndoState of the
    context's document): the counts and the top names. Read as the app's own
    app id from another connection (documents belong to app ids). Besides
    being compared with the model, it tells when a step whose outcome is not
    seen in the field (Make Uppercase of upper case text) has landed."""

    def __init__(self, pid):
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.pid = pid
        self.document = None

    def call(self, method, arguments, reply):
        return self.bus.call_sync(BUS_NAME, MANAGER_PATH, MANAGER, method, arguments, GLib.VariantType(reply),
                                  Gio.DBusCallFlags.NONE, 5000, None).unpack()

    def find(self):
        """The undo document of the program's context that has one (the
        search field: mousepad's editor keeps its own undo), once published."""
        for owner, app_id, context_id in self.call("ListContexts", None, "(a(sss))")[0]:
            pid = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                     "GetConnectionUnixProcessID", GLib.Variant("(s)", (owner,)),
                                     GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
            if pid != self.pid:
                continue
            context = self.call("GetContext", GLib.Variant("(ss)", (owner, context_id)), "(a{sv}a{sv}ua(ssa{sv}))")[0]
            if context.get("document"):
                self.call("Register", GLib.Variant("(soa{sv})", (app_id, "/org/menubus/UndoProperty", {})), "()")
                self.document = context["document"]
                return self.document
        return None

    def state(self):
        """(undo count, redo count, undo name, redo name); a document with
        no step yet is (0, 0, None, None)."""
        if self.document is None and not poll(self.find, STEP_TIMEOUT):
            raise Failure("menubusd lists no context with an undo document for the program (pid %d)" % self.pid)
        try:
            state = self.call("GetUndoState", GLib.Variant("(s)", (self.document,)), "(a{sv})")[0]
        except GLib.Error as error:
            if "NoSuchDocument" in str(error):
                return 0, 0, None, None
            raise
        return (state["undo-count"], state["redo-count"], (state["undo-name"] or None) if state["can-undo"] else None,
                (state["redo-name"] or None) if state["can-redo"] else None)


class UndoPropertySession(Session):
    """The driver's session with the `undo-property` command."""

    def handle(self, line):
        verb, _, argument = line.strip().partition(" ")
        if verb == "undo-property":
            parts = argument.split()
            if len(parts) != 2 or not parts[0].lstrip("-").isdigit() or not parts[1].isdigit():
                raise Failure("undo-property takes SEED STEPS")
            return self.command_undo_property(int(parts[0]), int(parts[1]))
        return super().handle(line)

    # MARK: Reading the field

    def observed(self):
        text = self.search.queryText()
        content = text.getText(0, -1)
        caret = text.caretOffset
        start = end = caret
        if text.getNSelections() > 0:
            start, end = text.getSelection(0)
        return {"text": content, "caret": caret, "selection": [min(start, end), max(start, end)],
                "history": list(self.history.state())}

    def settle(self, expected, timeout=STEP_TIMEOUT):
        """Waits until the field shows `expected` and menubusd holds the
        history the model has; the last reading."""
        last = {}

        def matches():
            last.update(self.observed())
            return last == expected

        poll(matches, timeout)
        return dict(last)

    # MARK: The context menu

    def visible_item(self, menu, label):
        for child in children(menu):
            if label_of(child.name or "") == label and has_state(child, pyatspi.STATE_VISIBLE):
                return child
        return None

    def visible_labels(self, menu):
        return [label_of(child.name or "") for child in children(menu) if has_state(child, pyatspi.STATE_VISIBLE)]

    def open_menu(self):
        if self.popup() is not None:
            raise Failure("a menu is already showing")
        self.xdotool("key", "shift+F10")
        menu = poll(self.popup, self.timeout)
        if menu is None:
            raise Failure("no menu showed after Shift+F10")
        return menu

    def wait_for_item(self, menu, label):
        """MenuBus's items may join the open menu a moment after it shows:
        waits for the item, shown and sensitive."""
        def sensitive_item():
            item = self.visible_item(menu, label)
            return item if item is not None and has_state(item, pyatspi.STATE_SENSITIVE) else None

        item = poll(sensitive_item, STEP_TIMEOUT)
        if item is None:
            raise Failure("the menu showed no sensitive %r within %s s: %s"
                          % (label, STEP_TIMEOUT, self.visible_labels(menu)))
        return item

    def choose_item(self, item, label):
        action = item.queryAction()
        index = next((i for i in range(action.nActions) if action.getName(i) in ("click", "activate", "press")), 0)
        action.doAction(index)
        if not poll(lambda: self.popup() is None, self.timeout):
            raise Failure("the menu stayed open after %r" % label)

    def close_menu(self):
        self.xdotool("key", "Escape")
        if not poll(lambda: self.popup() is None, self.timeout):
            raise Failure("the menu stayed open after Escape")

    def menu_move(self, model, verb):
        """Undo or Redo from the menu when the model has a step to move:
        its item, named after the step, is chosen (True). When it has none, the
        menu must offer no such item: checked once the items MenuBus must
        show are in (the other stack's item), or once two readings agree
        when it must show neither."""
        name = model.undo_name() if verb == "Undo" else model.redo_name()
        if name is not None:
            label = "%s %s" % (verb, name)
            menu = self.open_menu()
            self.choose_item(self.wait_for_item(menu, label), label)
            return True
        other, other_name = ("Redo", model.redo_name()) if verb == "Undo" else ("Undo", model.undo_name())
        menu = self.open_menu()
        if other_name is not None:
            self.wait_for_item(menu, "%s %s" % (other, other_name))
            labels = self.visible_labels(menu)
        else:
            labels = self.visible_labels(menu)
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                time.sleep(0.05)
                again = self.visible_labels(menu)
                if again == labels:
                    break
                labels = again
        self.close_menu()
        offered = [label for label in labels if label.split(" ")[0] == verb]
        if offered:
            raise Failure("the menu offers %s with nothing to %s in the model: %s" % (offered, verb.lower(), labels))
        return False

    # MARK: The property

    def perform(self, model, kind, argument):
        """Does the step in the field and in the model."""
        if kind == "type":
            self.xdotool("type", "--delay", "12", "--", argument)
            model.type_text(argument)
        elif kind in ("backspace", "delete"):
            self.xdotool("key", "BackSpace" if kind == "backspace" else "Delete")
            model.backspace() if kind == "backspace" else model.delete()
        elif kind in ("move", "select"):
            keys = argument.split()
            self.xdotool("key", "--delay", "12", "--", *keys)
            for key in keys:
                model.move(key)
        elif kind == "uppercase":
            menu = self.open_menu()
            self.choose_item(self.wait_for_item(menu, "Make Uppercase"), "Make Uppercase")
            model.uppercase()
        elif kind == "undo-key":
            self.xdotool("key", "ctrl+z")
            model.undo_step()
        elif kind == "redo-key":
            self.xdotool("key", "ctrl+shift+z")
            model.redo_step()
        elif kind == "undo-menu":
            # With nothing to undo there is no item to choose: the menu
            # closes and the typing run goes on.
            if self.menu_move(model, "Undo"):
                model.undo_step()
        elif kind == "redo-menu":
            if self.menu_move(model, "Redo"):
                model.redo_step()
        else:
            raise Failure("no step %r" % kind)

    def command_undo_property(self, seed, count):
        # The model starts with no history: a field nobody typed in yet.
        if self.search is not None:
            raise Failure("undo-property runs in a search field not used before: start the program again")
        self.command_focus("search")
        self.history = DaemonHistory(self.process.pid)
        if self.observed()["text"]:
            raise Failure("the search field is not empty: %r" % self.observed()["text"])
        chooser = Steps(seed)
        model = Model()
        steps = []
        started = now_ms()
        kinds = {}
        for index in range(count):
            kind, argument = chooser.next(model)
            steps.append("%s %s" % (kind, argument) if argument else kind)
            kinds[kind] = kinds.get(kind, 0) + 1
            before = model.state()
            try:
                self.perform(model, kind, argument)
                expected = model.state()
                actual = self.settle(expected)
            except (Failure, GLib.Error) as error:
                gone = self.process.poll()
                return self.failed(seed, steps, model, "%s: %s%s" % (type(error).__name__, error,
                                   "" if gone is None else " (mousepad exited with %s)" % gone), before=before)
            if actual != expected:
                return self.failed(seed, steps, model, "the field differs from the model", before=before,
                                   expected=expected, actual=actual)
        return {"seed": seed, "steps": count, "kinds": kinds, "ms": round(now_ms() - started, 1),
                "text": model.text, "undo": len(model.undo), "redo": len(model.redo)}

    def failed(self, seed, steps, model, error, **states):
        """The answer at the first step that failed: the steps so far (the
        last one failed), the field's states and the model's stacks."""
        gtk_app.log("undo-property: seed %d, step %d (%s): %s" % (seed, len(steps) - 1, steps[-1], error))
        return {"ok": False, "error": error, "seed": seed, "step": len(steps) - 1, "steps": steps,
                "model": model.describe(), **states}


if __name__ == "__main__":
    sys.exit(gtk_app.main(UndoPropertySession))
