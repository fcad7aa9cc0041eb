#if canImport(Glibc)
import Glibc
#endif
internal import CDBus

/// What the bus knows of a peer's process (`GetConnectionCredentials`).
package struct PeerCredentials {
    package var processId: UInt32?
    var userId: UInt32?
    /// The LSM label (AppArmor: `snap.NAME.APP (enforce)`), without its NUL.
    package var securityLabel: String?
    /// A pidfd of the process (`ProcessFD`, dbus ≥ 1.15), so a reused pid
    /// cannot stand in for it.
    package var process: ProcessHandle?
}

/// An owned file descriptor for a process; closed with the last reference.
package final class ProcessHandle {
    package let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }
}

extension Connection {
    /// Asks the bus who `uniqueName` is. Blocks on the bus daemon only (which
    /// always answers at once), never on a peer.
    package func credentials(of uniqueName: String, timeout: Double = 5) throws -> PeerCredentials {
        let message = try Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", member: "GetConnectionCredentials",
                                             arguments: [.string(uniqueName)])
        guard let raw else { throw BusError(name: BusError.Standard.disconnected, message: "the bus connection was lost") }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let milliseconds = Int32(clamping: MessageLoop.nanoseconds(timeout) / 1_000_000)
        guard let replyRaw = dbus_connection_send_with_reply_and_block(raw, message.raw, milliseconds, &error) else {
            let name = error.name.map { String(cString: $0) } ?? BusError.Standard.failed
            let text = error.message.map { String(cString: $0) } ?? "GetConnectionCredentials failed"
            throw BusError(name: name, message: text)
        }
        let reply = Message(owning: replyRaw)
        var credentials = PeerCredentials()
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(reply.raw, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == MB_TYPE_ARRAY else {
            throw BusError.failed("GetConnectionCredentials answered without a dict")
        }
        var entries = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &entries)
        while dbus_message_iter_get_arg_type(&entries) == MB_TYPE_DICT_ENTRY {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&entries, &entry)
            guard dbus_message_iter_get_arg_type(&entry) == MB_TYPE_STRING else {
                dbus_message_iter_next(&entries)
                continue
            }
            var keyPointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&entry, &keyPointer)
            let key = keyPointer.map { String(cString: $0) } ?? ""
            if dbus_message_iter_next(&entry) != 0 {
                var variant = DBusMessageIter()
                dbus_message_iter_recurse(&entry, &variant)
                if dbus_message_iter_get_arg_type(&variant) == MB_TYPE_UNIX_FD {
                    // libdbus hands out a duplicate: ours to close.
                    var fd: Int32 = -1
                    dbus_message_iter_get_basic(&variant, &fd)
                    if fd >= 0 {
                        let handle = ProcessHandle(fd: fd)
                        if key == "ProcessFD" { credentials.process = handle }
                    }
                } else if dbus_message_iter_get_arg_type(&variant) == MB_TYPE_UINT32 {
                    var number: UInt32 = 0
                    dbus_message_iter_get_basic(&variant, &number)
                    if key == "ProcessID" { credentials.processId = number }
                    if key == "UnixUserID" { credentials.userId = number }
                } else if key == "LinuxSecurityLabel", dbus_message_iter_get_arg_type(&variant) == MB_TYPE_ARRAY,
                          dbus_message_iter_get_element_type(&variant) == MB_TYPE_BYTE {
                    var bytes = DBusMessageIter()
                    dbus_message_iter_recurse(&variant, &bytes)
                    var pointer: UnsafeMutableRawPointer? = nil
                    var count: Int32 = 0
                    dbus_message_iter_get_fixed_array(&bytes, &pointer, &count)
                    let label = pointer.map { UnsafeRawBufferPointer(start: $0, count: Int(count)) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
                    credentials.securityLabel = String(decoding: label.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
            dbus_message_iter_next(&entries)
        }
        return credentials
    }
}
