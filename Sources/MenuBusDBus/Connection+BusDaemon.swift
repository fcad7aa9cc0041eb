internal import CDBus

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
