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
        guard reply.signature == "a{sv}" else { throw BusError.failed("GetConnectionCredentials answered without a dict") }
        var credentials = PeerCredentials()
        var processFD = false
        try MessageReader.withBody(of: reply, maxValues: .max) { reader in
            let end = try reader.beginArray(elementAlignment: 8)
            while reader.offset < end {
                try reader.align(8)
                let key = try reader.string(lengthBytes: 4)
                let contained = try reader.variantSignature()
                switch Array(contained) {
                case Array("u".utf8):
                    let number = try reader.uint32()
                    if key == "ProcessID" { credentials.processId = number }
                    if key == "UnixUserID" { credentials.userId = number }
                case Array("h".utf8):
                    // The index of a descriptor carried beside the body.
                    _ = try reader.uint32()
                    if key == "ProcessFD" { processFD = true }
                default:
                    var position = 0
                    let value = try reader.value(contained, &position)
                    if key == "LinuxSecurityLabel", case .bytes(let label) = value {
                        credentials.securityLabel = String(decoding: label.prefix { $0 != 0 }, as: UTF8.self)
                    }
                }
            }
        }
        if processFD, let fd = reply.duplicatedUnixFD(forKey: "ProcessFD") {
            credentials.process = ProcessHandle(fd: fd)
        }
        return credentials
    }
}

extension Message {
    /// The descriptor in the variant of `key` in this message's `a{sv}`
    /// body, duplicated (the caller's to close). Descriptors travel beside
    /// the body, and libdbus's iterator is the only public way to take one:
    /// the one place MenuBus reads a message with it (`MessageReader`
    /// reads everything else).
    func duplicatedUnixFD(forKey key: String) -> Int32? {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == MB_TYPE_ARRAY else {
            return nil
        }
        var entries = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &entries)
        while dbus_message_iter_get_arg_type(&entries) == MB_TYPE_DICT_ENTRY {
            var entry = DBusMessageIter()
            var keyPointer: UnsafePointer<CChar>? = nil
            var variant = DBusMessageIter()
            dbus_message_iter_recurse(&entries, &entry)
            if dbus_message_iter_get_arg_type(&entry) == MB_TYPE_STRING {
                dbus_message_iter_get_basic(&entry, &keyPointer)
            }
            if let keyPointer, String(cString: keyPointer) == key, dbus_message_iter_next(&entry) != 0 {
                dbus_message_iter_recurse(&entry, &variant)
                guard dbus_message_iter_get_arg_type(&variant) == MB_TYPE_UNIX_FD else { return nil }
                var fd: Int32 = -1
                dbus_message_iter_get_basic(&variant, &fd)
                return fd >= 0 ? fd : nil
            }
            dbus_message_iter_next(&entries)
        }
        return nil
    }
}
