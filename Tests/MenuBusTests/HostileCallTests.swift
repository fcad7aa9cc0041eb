import XCTest
@testable import MenuBusDBus

/// What the reader refuses reaches the caller as an error naming the argument.
final class HostileCallTests: BusTestCase {
    /// A unix fd (which MenuBus never takes) inside an `a{sv}`, sent by GDBus
    /// in both byte orders: InvalidArgs naming `options`, and the daemon
    /// answers the next call.
    func testAUnixFdInAnArgumentIsRefusedNamingTheArgument() throws {
        _ = try startDaemon()
        let script = """
            import os
            from gi.repository import Gio, GLib
            bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            fds = Gio.UnixFDList.new()
            index = fds.append(os.open("/dev/null", os.O_RDONLY))
            for order in (Gio.DBusMessageByteOrder.LITTLE_ENDIAN, Gio.DBusMessageByteOrder.BIG_ENDIAN):
                call = Gio.DBusMessage.new_method_call("org.menubus.MenuBus1", "/org/menubus/MenuBus1",
                                                       "org.menubus.MenuBus1", "GetContextMenu")
                call.set_body(GLib.Variant("(ssa{sv})", ("org.example.App", "c", {"fd": GLib.Variant("h", index)})))
                call.set_unix_fd_list(fds)
                call.set_byte_order(order)
                reply, _ = bus.send_message_with_reply_sync(call, Gio.DBusSendMessageFlags.NONE, 10000, None)
                print(reply.get_error_name(), reply.get_body()[0] if reply.get_body() else "")
            """
        let result = try bus.runProgram("/usr/bin/python3", ["-c", script])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = "org.freedesktop.DBus.Error.InvalidArgs options: a unix file descriptor ('h') is not accepted"
        XCTAssertEqual(result.stdout.split(separator: "\n").map(String.init), [expected, expected], result.stderr)
        XCTAssertEqual(try callDaemon(try connect(), "ListContexts").count, 1, "the daemon still answers")
    }
}
