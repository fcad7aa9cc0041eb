import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// A composed menu: its revision and its elements, parents before children.
public struct Menu: Hashable, Sendable {
    public let revision: UInt32
    public let elements: [MenuElement]

    /// The element with `id`, if the menu has one.
    public func element(_ id: String) -> MenuElement? {
        elements.first { $0.id == id }
    }
}

/// A menu presented by menubusd: a live object that updates while open.
public struct PresentedMenu: Hashable, Sendable {
    public let path: ObjectPath

    /// A menu presented elsewhere, by its path (`/org/menubus/MenuBus1/menu/N`).
    public init(path: ObjectPath) {
        self.path = path
    }
}

/// One of the app's own items, chosen in a menu.
public struct ActionInvocation: Sendable {
    public let contextId: String
    public let itemId: String
    public let platformData: [String: DBusValue]
}

/// A standard command chosen in a menu (`copy`, `undo`, `replace-selection`…).
public struct CommandInvocation: Sendable {
    public let contextId: String
    /// The command as sent; `command` is nil for a name this library does not know.
    public let name: String
    public var command: StandardCommand? { StandardCommand(rawValue: name) }
    public let arguments: [String: DBusValue]
}

/// What `GetContext` answers: a context as published.
public struct PublishedContextSnapshot: Hashable, Sendable {
    public let context: ContextInfo
    public let selection: Selection
    public let revision: UInt32
    public let items: [MenuElement]
}

/// A row of `ListContexts`.
public struct ContextListing: Hashable, Sendable {
    public let owner: String
    public let appId: String
    public let contextId: String
}

extension MenuBusClient {
    /// Becomes an app: callbacks (`onAction`, `onCommand`, …) arrive at `clientPath`.
    public func register(appId: String, clientPath: ObjectPath = "/org/menubus/Client") throws {
        connection.export(clientPath, [clientInterface()])
        _ = try resolveDaemonOwner()
        _ = try callManager("Register", [.string(appId), .objectPath(clientPath), .array("{sv}", [])])
        replay.registration = (appId, clientPath)
    }

    /// Creates or replaces a context and its items; returns its revision.
    @discardableResult
    public func publishContext(_ contextId: String, _ context: ContextInfo, items: [MenuElement] = []) throws -> UInt32 {
        let result = try revision(callManager("PublishContext", [.string(contextId), Wire.encode(context), Wire.encode(items)]))
        replay.published(contextId, context, items)
        return result
    }

    /// Replaces the context's own items; open menus of it update.
    @discardableResult
    public func updateItems(_ contextId: String, _ items: [MenuElement]) throws -> UInt32 {
        let result = try revision(callManager("UpdateItems", [.string(contextId), Wire.encode(items)]))
        replay.contexts[contextId]?.items = items
        return result
    }

    /// Tells menubusd what is selected now; open edit menus update.
    public func updateSelection(_ contextId: String, _ selection: Selection) throws {
        _ = try callManager("UpdateSelection", [.string(contextId), Wire.encode(selection)])
        replay.contexts[contextId]?.selection = selection
    }

    public func removeContext(_ contextId: String) throws {
        _ = try callManager("RemoveContext", [.string(contextId)])
        replay.removed(contextId)
    }

    /// The composed context menu of `contextId`; `owner` is an app id, a unique name, or "" for this app.
    /// `locale` ("ru", "ja_JP.UTF-8") sets the language of MenuBus's own titles; nil: the session's.
    public func contextMenu(owner: String = "", contextId: String, locale: String? = nil) throws -> Menu {
        try composedMenu("GetContextMenu", [.string(owner), .string(contextId), Self.localeOptions(locale)])
    }

    /// The composed edit menu for the context's current selection.
    public func editMenu(owner: String = "", contextId: String, locale: String? = nil) throws -> Menu {
        try composedMenu("GetEditMenu", [.string(owner), .string(contextId), Self.localeOptions(locale)])
    }

    /// Presents a menu; it stays live until dismissed, chosen from, or its owner leaves.
    /// `anchor` is where the presenter places it (passed through as the
    /// menu's `Anchor`); `locale` as for `editMenu`.
    public func present(owner: String = "", contextId: String, kind: MenuKind, anchor: Rect? = nil,
                        locale: String? = nil) throws -> PresentedMenu {
        var options: [String: DBusValue] = [:]
        if let anchor { options["anchor"] = WireValue.rectValue(anchor) }
        if let locale { options["locale"] = .string(locale) }
        let reply = try callManager("PresentMenu", [.string(owner), .string(contextId), .string(kind.rawValue), options.dbusValue])
        guard let first = reply.first, case .objectPath(let path) = first else { throw unexpected("PresentMenu", reply) }
        replay.presented.insert(path)
        return PresentedMenu(path: path)
    }

    private static func localeOptions(_ locale: String?) -> DBusValue {
        var options: [String: DBusValue] = [:]
        if let locale { options["locale"] = .string(locale) }
        return options.dbusValue
    }

    /// A context as its app published it: its `a{sv}`, selection, revision
    /// and own items, deferred elements included (nothing composed).
    public func publishedContext(owner: String = "", contextId: String) throws -> PublishedContextSnapshot {
        let reply = try callManager("GetContext", [.string(owner), .string(contextId)])
        guard reply.count == 4, case .uint32(let revision) = reply[2] else { throw unexpected("GetContext", reply) }
        return PublishedContextSnapshot(context: try Wire.decodeContext(reply[0]), selection: try Wire.decodeSelection(reply[1]),
                                        revision: revision, items: try Wire.decodeElements(reply[3]))
    }

    /// The presented menu's current layout.
    public func layout(of menu: PresentedMenu) throws -> Menu {
        try self.menu(callMenu(menu, "GetLayout"))
    }

    /// Chooses an item; returns once menubusd accepted it, before the owner hears of it.
    public func activate(_ menu: PresentedMenu, itemId: String, platformData: [String: DBusValue] = [:]) throws {
        _ = try callMenu(menu, "Activate", [.string(itemId), platformData.dbusValue])
    }

    public func dismiss(_ menu: PresentedMenu) throws {
        _ = try callMenu(menu, "Dismiss")
    }

    /// Checks a menu against the design rules without publishing it.
    public func lint(kind: MenuKind, items: [MenuElement]) throws -> [LintFinding] {
        let reply = try callManager("Lint", [.string(kind.rawValue), Wire.encode(items)])
        guard let first = reply.first else { throw unexpected("Lint", reply) }
        return try Wire.decodeFindings(first)
    }

    public func listContexts() throws -> [ContextListing] {
        let reply = try callManager("ListContexts")
        guard let first = reply.first, case .array(_, let rows) = first else { throw unexpected("ListContexts", reply) }
        return rows.compactMap { row in
            guard case .structure(let fields) = row, fields.count == 3,
                  let owner = fields[0].stringValue, let appId = fields[1].stringValue,
                  let contextId = fields[2].stringValue else { return nil }
            return ContextListing(owner: owner, appId: appId, contextId: contextId)
        }
    }

    /// Calls `handler` with every new layout of presented menus; returns when
    /// the bus has the match. `closed` also runs for the menus this client
    /// presented when menubusd leaves the bus (they die with it).
    public func observeMenus(_ handler: @escaping (PresentedMenu, Menu) -> Void,
                             closed: @escaping (PresentedMenu) -> Void = { _ in }) throws {
        _ = try resolveDaemonOwner()
        subscribeToDaemon(interface: MenuBusNames.menuInterface, member: "LayoutChanged") { [weak self] message in
            guard let self, let path = message.path, let args = try? message.arguments(),
                  let menu = try? self.menu(args) else { return }
            handler(PresentedMenu(path: ObjectPath(stringLiteral: path)), menu)
        }
        subscribeToDaemon(interface: MenuBusNames.menuInterface, member: "Closed") { [weak self] message in
            guard let path = message.path else { return }
            self?.replay.presented.remove(ObjectPath(stringLiteral: path))
            closed(PresentedMenu(path: ObjectPath(stringLiteral: path)))
        }
        replay.closedHandlers.append(closed)
        try syncWithBus()
    }

    /// A round trip to the bus, so match rules sent before it are in force.
    func syncWithBus() throws {
        _ = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                        interface: "org.freedesktop.DBus", member: "GetId", timeout: callTimeout)
    }

    func callMenu(_ menu: PresentedMenu, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.callBlocking(destination: MenuBusNames.busName, path: menu.path,
                                    interface: MenuBusNames.menuInterface, member: member,
                                    arguments: arguments, timeout: callTimeout)
    }

    private func revision(_ reply: [DBusValue]) throws -> UInt32 {
        guard let first = reply.first, case .uint32(let revision) = first else { throw unexpected("revision", reply) }
        return revision
    }

    /// A composed menu, read and checked only when its reply's bytes differ
    /// from those of the last few read (menubusd sends the same bytes while
    /// the menu is equal, so a presenter asking again mostly gets them).
    private func composedMenu(_ member: String, _ arguments: [DBusValue]) throws -> Menu {
        let reply = try connection.callBlockingReply(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                                     interface: MenuBusNames.managerInterface, member: member,
                                                     arguments: arguments, timeout: callTimeout)
        let signature = reply.signature
        let body = reply.body
        if let body, let index = recentMenus.firstIndex(where: { $0.signature == signature && $0.body == body }) {
            let known = recentMenus.remove(at: index)
            recentMenus.insert(known, at: 0)
            return known.menu
        }
        let menu = try menu(reply.arguments())
        if let body, body.count <= Self.maxRememberedMenuBytes {
            recentMenus.insert((body, signature, menu), at: 0)
            if recentMenus.count > Self.maxRememberedMenus { recentMenus.removeLast() }
        }
        return menu
    }

    /// How many replies `composedMenu` keeps to compare with, and the
    /// largest it keeps (at most 1 MiB in all).
    static let maxRememberedMenus = 4
    static let maxRememberedMenuBytes = 256 << 10

    private func menu(_ reply: [DBusValue]) throws -> Menu {
        guard reply.count == 2, case .uint32(let revision) = reply[0] else { throw unexpected("menu", reply) }
        return Menu(revision: revision, elements: try Wire.decodeComposedMenu(reply[1], field: "items"))
    }

    package func unexpected(_ what: String, _ reply: [DBusValue]) -> BusError {
        BusError.failed("menubusd answered \(what) with '\(reply.map(\.signature.rawValue).joined())'")
    }
}

/// A signal menubusd emitted, for tools that watch the bus.
public struct MenuBusSignal: Sendable {
    public let path: String
    public let interface: String
    public let member: String
    public let arguments: [DBusValue]
}

extension MenuBusClient {
    /// Calls `handler` with every signal menubusd emits (menus, undo state, properties).
    public func observeAllSignals(_ handler: @escaping (MenuBusSignal) -> Void) throws {
        _ = try resolveDaemonOwner()
        subscribeToDaemon { message in
            guard let path = message.path, let interface = message.interface, let member = message.member,
                  let arguments = try? message.arguments() else { return }
            handler(MenuBusSignal(path: path, interface: interface, member: member, arguments: arguments))
        }
        try syncWithBus()
    }

    /// Stops `run` from another callback (for tools that run until a signal).
    public func stopRunning() {
        loop.stop()
    }

    /// Pumps the connection until `stopRunning()` or the connection closes.
    public func runForever() {
        loop.run()
    }
}
