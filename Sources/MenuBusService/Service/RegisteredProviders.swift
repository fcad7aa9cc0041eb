import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// The providers connections registered (Providers.swift):
/// each by id with its owner, in registration order, within the limits of
/// ServiceLimits. Only the registering connection changes or removes one.
package final class RegisteredProviders {
    /// Registered providers by id.
    package private(set) var byId: [String: RegisteredProvider] = [:] { didSet { generation &+= 1 } }
    /// Changes with every change of `byId`: what menus offer is derived
    /// from it once per change (`Providers.infos`).
    private(set) var generation = 0
    /// The last registration number handed out.
    private var lastSequence: UInt64 = 0

    package subscript(id: String) -> RegisteredProvider? { byId[id] }

    /// In registration order, as menus list them.
    var inOrder: [RegisteredProvider] { byId.values.sorted { $0.sequence < $1.sequence } }

    /// Registers `info` for `owner` at `path`, or updates its own
    /// registration (which keeps its place in the order).
    func register(_ providerId: String, _ info: ProviderInfo, owner: String, path: ObjectPath) throws(BusError) {
        if let existing = byId[providerId], existing.owner != owner {
            throw BusError(.accessDenied, "providerId: '\(providerId)' is registered by another connection")
        }
        if byId[providerId] == nil, byId.count >= ServiceLimits.maxProviders {
            throw BusError(.limitExceeded, "providerId: at most \(ServiceLimits.maxProviders) providers may be registered at once")
        }
        let held = byId.values.filter { $0.owner == owner && $0.info.id != providerId }.count
        guard held < ServiceLimits.maxProvidersPerConnection else {
            throw BusError(.limitExceeded, "providerId: a connection may register at most \(ServiceLimits.maxProvidersPerConnection) providers")
        }
        lastSequence += 1
        byId[providerId] = RegisteredProvider(info: info, owner: owner, path: path,
                                              sequence: byId[providerId]?.sequence ?? lastSequence)
    }

    /// Removes `providerId`, registered by `caller`.
    func unregister(_ providerId: String, caller: String) throws(BusError) {
        guard let provider = byId[providerId] else {
            throw BusError(.noSuchItem, "providerId: no provider '\(providerId)' is registered")
        }
        guard provider.owner == caller else {
            throw BusError(.accessDenied, "providerId: '\(providerId)' is registered by another connection")
        }
        byId[providerId] = nil
    }

    /// Removes every provider `uniqueName` registered; false when it had none.
    func removeAll(ownedBy uniqueName: String) -> Bool {
        let gone = byId.values.filter { $0.owner == uniqueName }.map(\.info.id)
        for id in gone { byId[id] = nil }
        return !gone.isEmpty
    }
}
