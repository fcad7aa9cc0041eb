import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

extension MenuBusClient {
    /// Takes a well-known name, as a provider started by D-Bus activation
    /// must: the bus holds the call that started it until the name is owned.
    /// Returns false when another connection has it.
    @discardableResult
    public func requestName(_ name: String) throws -> Bool {
        switch try connection.requestName(name) {
        case .owned, .alreadyOwner: return true
        case .taken: return false
        }
    }

    /// True when some connection owns `name` (`org.freedesktop.DBus.NameHasOwner`).
    public func nameHasOwner(_ name: String) throws -> Bool {
        let reply = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                interface: "org.freedesktop.DBus", member: "NameHasOwner",
                                                arguments: [.string(name)], timeout: callTimeout)
        return reply.first == .boolean(true)
    }

    /// A blocking call to any service on this bus (a portal, for example).
    public func call(destination: String, path: ObjectPath, interface: String, member: String,
                     arguments: [DBusValue] = [], timeout: Double? = nil) throws -> [DBusValue] {
        try connection.callBlocking(destination: destination, path: path, interface: interface, member: member,
                                    arguments: arguments, timeout: timeout ?? callTimeout)
    }

    /// `ListProviders`: every registered and declared provider with its
    /// properties (`title`, `role`, `running`, `declared`, `enabled`, …).
    public func listProviders() throws -> [(id: String, properties: [String: DBusValue])] {
        let providers = try callManager(MenuBusAPI.Manager.listProviders)
        guard case .array(_, let rows) = providers else { throw unexpected("ListProviders", [providers]) }
        return try rows.map { row in
            guard case .structure(let fields) = row, fields.count == 2, case .string(let id) = fields[0] else {
                throw unexpected("ListProviders", [providers])
            }
            return (id, try [String: DBusValue](dbusValue: fields[1]))
        }
    }
}
