#!/usr/bin/python3
"""A GTK 4 window of text fields, for the GTK 4 IM module's tests: a
GtkPasswordEntry, a GtkEntry with hidden text, a GtkSearchEntry and a plain
GtkEntry. Reads one command a line on stdin, `focus NAME` (password,
hidden, search, plain), gives that field the focus and answers `focused
NAME` once GTK says it has it; prints `ready` when the window is shown."""

import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main():
    app = Gtk.Application(application_id="org.menubus.test.Gtk4Fields")
    fields = {}

    def answer(text):
        print(text, flush=True)

    def on_line(channel, condition):
        line = sys.stdin.readline()
        if not line:
            app.quit()
            return False
        words = line.split()
        if len(words) == 2 and words[0] == "focus" and words[1] in fields:
            field = fields[words[1]]
            field.grab_focus()

            def check():
                if field.get_focus_child() is not None or field.has_focus():
                    answer("focused " + words[1])
                    return False
                return True

            GLib.timeout_add(10, check)
        else:
            answer("error " + line.strip())
        return True

    def activate(app):
        window = Gtk.ApplicationWindow(application=app, title="GTK 4 fields")
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        fields["password"] = Gtk.PasswordEntry()
        fields["hidden"] = Gtk.Entry(visibility=False)
        fields["search"] = Gtk.SearchEntry()
        fields["plain"] = Gtk.Entry()
        for field in fields.values():
            box.append(field)
        window.set_child(box)
        window.present()
        GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.IO_IN | GLib.IO_HUP, on_line)
        GLib.idle_add(lambda: answer("ready") or False)

    app.connect("activate", activate)
    return app.run([])


if __name__ == "__main__":
    sys.exit(main())
