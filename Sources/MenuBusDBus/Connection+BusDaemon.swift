#if canImport(Glibc)
import Glibc
#endif
internal import CDBus

// What a connection asks the bus daemon: the names it owns and asks about,
// and who a peer is.

/// The bus names a connection owns and asks about.
extension Connection {
    /// Asks the bus for `name` without queueing. The name is always owned
    /// with `ALLOW_REPLACEMENT`, so a later `--replace` can take it over;
    /// `replaceExisting` takes it from an owner that allowed that.
    package func requestName(_ name: String, replaceExisting: Bool = false) throws -> NameRequestResult {
        guard let raw else { throw Connection.closedError }
        guard Names.isValidBusName(name) else { throw BusError.invalidArgs("'\(name)' is not a valid bus name") }
        var error = DBusError()
        dbus_error_init(&error)
        var flags = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE) | UInt32(DBUS_NAME_FLAG_ALLOW_REPLACEMENT)
        if replaceExisting { flags |= UInt32(DBUS_NAME_FLAG_REPLACE_EXISTING) }
        let result = dbus_bus_request_name(raw, name, flags, &error)
        if result < 0 { throw Connection.take(&error, fallback: "RequestName failed") }
        switch result {
        case Int32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER): return .owned
        case Int32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER): return .alreadyOwner
        default: return .taken
        }
    }

    /// The unique name owning `name` now, or nil.
    package func nameOwner(_ name: String, timeout: Double = 5) -> String? {
        let reply = try? callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                      interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                      arguments: [.string(name)], timeout: timeout)
        return reply?.first?.stringValue
    }

    /// Calls `handler` when the bus takes one of this connection's names
    /// away (`NameLost`, sent to this connection alone).
    package func onNameLost(_ handler: @escaping (String) -> Void) {
        subscribe(interface: "org.freedesktop.DBus", member: "NameLost", path: "/org/freedesktop/DBus",
                  sender: "org.freedesktop.DBus") { message in
            guard let args = try? message.arguments(), let name = args.first?.stringValue else { return }
            handler(name)
        }
    }

    package func releaseName(_ name: String) throws {
        guard let raw else { throw Connection.closedError }
        var error = DBusError()
        dbus_error_init(&error)
        if dbus_bus_release_name(raw, name, &error) < 0 {
            throw Connection.take(&error, fallback: "ReleaseName failed")
        }
    }
}

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
