#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal's OpenURI on the session bus: owns
org.freedesktop.portal.Desktop and writes each OpenURI call's URI and
options (one line: URI, then key=value pairs) to the file named by argv[1]."""
import sys
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib

XML = """<node><interface name='org.freedesktop.portal.OpenURI'>
<method name='OpenURI'><arg type='s' direction='in'/><arg type='s' direction='in'/>
<arg type='a{sv}' direction='in'/><arg type='o' direction='out'/></method>
</interface></node>"""
record = sys.argv[1]


def on_call(connection, sender, path, interface, method, params, invocation):
    parent, uri, options = params.unpack()
    with open(record, "a") as out:
        out.write(" ".join([uri] + [f"{k}={v}" for k, v in sorted(options.items())]) + "\n")
    invocation.return_value(GLib.Variant("(o)", ("/org/freedesktop/portal/desktop/request/1_1/t",)))


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object("/org/freedesktop/portal/desktop", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], on_call, None, None)
Gio.bus_own_name_on_connection(bus, "org.freedesktop.portal.Desktop", Gio.BusNameOwnerFlags.NONE, None, None)
GLib.MainLoop().run()
