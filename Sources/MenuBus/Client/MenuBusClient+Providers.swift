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
        _ = try callManager("RegisterProvider", [.string(description.id), .objectPath(path), description.wireValue])
        replay.providers[description.id] = (description, path)
        if !replay.providerOrder.contains(description.id) { replay.providerOrder.append(description.id) }
    }

    /// `org.menubus.MenuBus1.Provider`, served at the path given to `registerProvider`.
    package func providerInterface() -> Interface {
        var provider = Interface(MenuBusNames.providerInterface)
        provider.method("Process", in: [arg("providerId", String.self), arg("text", String.self),
                                        arg("context", [String: DBusValue].self)],
                        out: [arg("replacement", String.self), arg("info", [String: DBusValue].self)]) { [weak self] call in
            try self?.checkFromDaemon(call)
            let id: String = try call.argument(0)
            if let self, let later = self.providerLaterHandlers[id] {
                later(try call.argument(1), try call.argument(2), ProviderReply(call.deferReply(), loop: self.loop))
                return []
            }
            guard let handler = self?.providerHandlers[id] else {
                throw BusError(.noSuchItem, "no provider '\(id)' here")
            }
            return [.string(try handler(try call.argument(1), try call.argument(2))), .array("{sv}", [])]
        }
        return provider
    }

    public func unregisterProvider(_ id: String) throws {
        _ = try callManager("UnregisterProvider", [.string(id)])
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
        subscribeToDaemon(interface: MenuBusNames.menuInterface, member: "ProviderResult") { message in
            guard let path = message.path, let args = try? message.arguments(), args.count == 3,
                  case .string(let providerId) = args[0], case .string(let text) = args[1],
                  let entries = args[2].dictEntries else { return }
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
