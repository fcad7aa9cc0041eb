import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

extension MenuBusClient {
    /// Offers `description` to every app's menus; `process` gets the selected
    /// text and the context (`app-id`, `kind`, …) and returns replacement text or "".
    public func registerProvider(_ description: ProviderInfo, path: ObjectPath = "/org/menubus/Provider",
                                 process: @escaping (String, [String: DBusValue]) throws -> String) throws {
        providerHandlers[description.id] = process
        providerLaterHandlers[description.id] = nil
        try offerProvider(description, path: path)
    }

    /// Offers `description`, answering `Process` later: `processLater` gets
    /// the selected text, the context and the reply to answer through, from
    /// any thread, while the connection goes on answering other calls
    /// (menubusd never waits on it; it gives up after its timeout).
    /// See `registerProviderAsync` for an async handler.
    public func registerProvider(_ description: ProviderInfo, path: ObjectPath = "/org/menubus/Provider",
                                 processLater: @escaping (String, [String: DBusValue], ProviderReply) -> Void) throws {
        providerLaterHandlers[description.id] = processLater
        providerHandlers[description.id] = nil
        try offerProvider(description, path: path)
    }

    private func offerProvider(_ description: ProviderInfo, path: ObjectPath) throws {
        let provider = providerInterface()
        connection.export(path, [provider])
        _ = try resolveDaemonOwner()
        try callManager(MenuBusAPI.Manager.registerProvider, description.id, path, description.wireValue)
        replay.providers[description.id] = (description, path)
        if !replay.providerOrder.contains(description.id) { replay.providerOrder.append(description.id) }
    }

    /// `org.menubus.MenuBus1.Provider`, served at the path given to `registerProvider`.
    package func providerInterface() -> Interface {
        var provider = Interface(MenuBusNames.providerInterface)
        provider.deferrableMethod(MenuBusAPI.Provider.process) { [weak self] call, id, text, context in
            try self?.checkFromDaemon(call)
            if let self, let later = self.providerLaterHandlers[id] {
                later(text, try [String: DBusValue](dbusValue: context), ProviderReply(call.deferReply(), loop: self.loop))
                return nil
            }
            guard let handler = self?.providerHandlers[id] else {
                throw BusError(.noSuchItem, "no provider '\(id)' here")
            }
            return (try handler(text, try [String: DBusValue](dbusValue: context)), .array("{sv}", []))
        }
        return provider
    }

    public func unregisterProvider(_ id: String) throws {
        try callManager(MenuBusAPI.Manager.unregisterProvider, id)
        providerHandlers[id] = nil
        providerLaterHandlers[id] = nil
        replay.providers[id] = nil
        replay.providerOrder.removeAll { $0 == id }
    }
}

/// A provider's answer about a selection it could not go into (a
/// `ProviderResult` signal): Translate's translation of read-only text,
/// for the presenter to show. Only the presenter of the menu it was chosen
/// from, and the chooser, hear it.
public struct ProviderResult: Sendable {
    /// The menu the provider was chosen from (closed by then, unless its
    /// item keeps the menu presented).
    public let menu: PresentedMenu
    public let providerId: String
    /// The answer; "" when the provider failed (see `error`).
    public let text: String
    /// `context-id`, `app-id`, `title` (the provider's), and `error` on failure.
    public let info: [String: DBusValue]

    public var contextId: String? { info["context-id"]?.unwrapped.stringValue }
    public var title: String? { info["title"]?.unwrapped.stringValue }
    /// "name: message" when the provider failed, did not answer in time, or did not start.
    public var error: String? { info["error"]?.unwrapped.stringValue }
}

extension MenuBusClient {
    /// Calls `handler` with each `ProviderResult` sent to this connection;
    /// returns when the subscription is in force.
    public func observeProviderResults(_ handler: @escaping (ProviderResult) -> Void) throws {
        _ = try resolveDaemonOwner()
        subscribeToDaemon(MenuBusAPI.Menu.providerResult) { message, providerId, text, infoValue in
            guard let path = message.path, let entries = infoValue.dictEntries else { return }
            var info: [String: DBusValue] = [:]
            for entry in entries {
                if case .string(let key) = entry.key { info[key] = entry.value.unwrapped }
            }
            handler(ProviderResult(menu: PresentedMenu(path: ObjectPath(stringLiteral: path)), providerId: providerId,
                                   text: text, info: info))
        }
        try syncWithBus()
    }
}
