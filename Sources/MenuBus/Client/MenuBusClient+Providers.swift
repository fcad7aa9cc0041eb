import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// A service this connection offers to every app's menus (`RegisterProvider`).
public struct ProviderDescription: Sendable {
    /// Unique on the bus: `[A-Za-z0-9._:-]`, such as `org.example.Uppercase`.
    public var id: String
    public var title: String
    public var icon: String?
    /// `translate`, `lookup`, `search-web`, `share`, or nil for an item of its own.
    public var role: String?
    /// MIME types it processes (default `text/plain`).
    public var contentTypes: [String]
    /// `Process` returns replacement text for the selection.
    public var returnsText: Bool
    /// Offer it only where the selection can be edited.
    public var requiresEditable: Bool

    public init(id: String, title: String, icon: String? = nil, role: String? = nil,
                contentTypes: [String] = ["text/plain"], returnsText: Bool = false, requiresEditable: Bool = false) {
        self.id = id
        self.title = title
        self.icon = icon
        self.role = role
        self.contentTypes = contentTypes
        self.returnsText = returnsText
        self.requiresEditable = requiresEditable
    }

    package var properties: DBusValue {
        var entries: [DBusValue] = [.dictEntry(.string("title"), .variant(.string(title)))]
        if let icon { entries.append(.dictEntry(.string("icon"), .variant(.string(icon)))) }
        if let role { entries.append(.dictEntry(.string("role"), .variant(.string(role)))) }
        entries.append(.dictEntry(.string("content-types"), .variant(.array("s", contentTypes.map(DBusValue.string)))))
        entries.append(.dictEntry(.string("returns-text"), .variant(.boolean(returnsText))))
        entries.append(.dictEntry(.string("requires-editable"), .variant(.boolean(requiresEditable))))
        return .array("{sv}", entries)
    }
}

extension MenuBusClient {
    /// Offers `description` to every app's menus; `process` gets the selected
    /// text and the context (`app-id`, `kind`, …) and returns replacement text or "".
    public func registerProvider(_ description: ProviderDescription, path: ObjectPath = "/org/menubus/Provider",
                                 process: @escaping (String, [String: DBusValue]) throws -> String) throws {
        providerHandlers[description.id] = process
        let provider = providerInterface()
        connection.export(path, [provider])
        _ = try resolveDaemonOwner()
        try callManager(MenuBusAPI.Manager.registerProvider, description.id, path, description.properties)
        replay.providers[description.id] = (description, path)
        if !replay.providerOrder.contains(description.id) { replay.providerOrder.append(description.id) }
    }

    /// `org.menubus.MenuBus1.Provider`, served at the path given to `registerProvider`.
    package func providerInterface() -> Interface {
        var provider = Interface(MenuBusNames.providerInterface)
        provider.method(MenuBusAPI.Provider.process) { [weak self] call, id, text, context in
            try self?.checkFromDaemon(call)
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
