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
        try callManager(MenuBusAPI.Manager.register, appId, clientPath, .array("{sv}", []))
        replay.registration = (appId, clientPath)
    }

    /// Creates or replaces a context and its items; returns its revision.
    @discardableResult
    public func publishContext(_ contextId: String, _ context: ContextInfo, items: [MenuElement] = []) throws -> UInt32 {
        let result = try callManager(MenuBusAPI.Manager.publishContext, contextId, Wire.encode(context), Wire.encode(items))
        replay.published(contextId, context, items)
        return result
    }

    /// Replaces the context's own items; open menus of it update.
    @discardableResult
    public func updateItems(_ contextId: String, _ items: [MenuElement]) throws -> UInt32 {
        let result = try callManager(MenuBusAPI.Manager.updateItems, contextId, Wire.encode(items))
        replay.contexts[contextId]?.items = items
        return result
    }

    /// Tells menubusd what is selected now; open edit menus update.
    public func updateSelection(_ contextId: String, _ selection: Selection) throws {
        try callManager(MenuBusAPI.Manager.updateSelection, contextId, Wire.encode(selection))
        replay.contexts[contextId]?.selection = selection
    }

    public func removeContext(_ contextId: String) throws {
        try callManager(MenuBusAPI.Manager.removeContext, contextId)
        replay.removed(contextId)
    }

    /// The composed context menu of `contextId`; `owner` is an app id, a unique name, or "" for this app.
    /// `locale` ("ru", "ja_JP.UTF-8") sets the language of MenuBus's own titles; nil: the session's.
    public func contextMenu(owner: String = "", contextId: String, locale: String? = nil) throws -> Menu {
        try composedMenu(MenuBusAPI.Manager.getContextMenu, owner, contextId, Self.localeOptions(locale))
    }

    /// The composed edit menu for the context's current selection.
    public func editMenu(owner: String = "", contextId: String, locale: String? = nil) throws -> Menu {
        try composedMenu(MenuBusAPI.Manager.getEditMenu, owner, contextId, Self.localeOptions(locale))
    }

    /// Presents a menu; it stays live until dismissed, chosen from, or its owner leaves.
    /// `anchor` is where the presenter places it (passed through as the
    /// menu's `Anchor`); `locale` as for `editMenu`; `appearance` whether
    /// the presenter draws the context's preview (`preview(of:)`).
    public func present(owner: String = "", contextId: String, kind: MenuKind, anchor: Rect? = nil,
                        locale: String? = nil, appearance: MenuAppearance = .rich) throws -> PresentedMenu {
        var options: [String: DBusValue] = [:]
        if let anchor { options["anchor"] = WireValue.rectValue(anchor) }
        if let locale { options["locale"] = .string(locale) }
        if appearance != .rich { options["appearance"] = .string(appearance.rawValue) }
        let path = try callManager(MenuBusAPI.Manager.presentMenu, owner, contextId, kind.rawValue, options.dbusValue)
        replay.presented.insert(path)
        return PresentedMenu(path: path)
    }

    static func localeOptions(_ locale: String?) -> DBusValue {
        var options: [String: DBusValue] = [:]
        if let locale { options["locale"] = .string(locale) }
        return options.dbusValue
    }

    /// A context as its app published it: its `a{sv}`, selection, revision
    /// and own items, deferred elements included (nothing composed).
    public func publishedContext(owner: String = "", contextId: String) throws -> PublishedContextSnapshot {
        let (context, selection, revision, items) = try callManager(MenuBusAPI.Manager.getContext, owner, contextId)
        return PublishedContextSnapshot(context: try Wire.decodeContext(context), selection: try Wire.decodeSelection(selection),
                                        revision: revision, items: try Wire.decodeElements(items))
    }

    /// The presented menu's current layout.
    public func layout(of menu: PresentedMenu) throws -> Menu {
        let (revision, items) = try callMenu(menu, MenuBusAPI.Menu.getLayout)
        return try self.menu(revision, items)
    }

    /// Chooses an item; returns once menubusd accepted it, before the owner hears of it.
    public func activate(_ menu: PresentedMenu, itemId: String, platformData: [String: DBusValue] = [:]) throws {
        try callMenu(menu, MenuBusAPI.Menu.activate, itemId, platformData.dbusValue)
    }

    public func dismiss(_ menu: PresentedMenu) throws {
        try callMenu(menu, MenuBusAPI.Menu.dismiss)
    }

    /// Checks a menu against the design rules without publishing it.
    public func lint(kind: MenuKind, items: [MenuElement]) throws -> [LintFinding] {
        try Wire.decodeFindings(callManager(MenuBusAPI.Manager.lint, kind.rawValue, Wire.encode(items)))
    }

    public func listContexts() throws -> [ContextListing] {
        try Self.contextListings(callManager(MenuBusAPI.Manager.listContexts))
    }

    /// `ListContexts`' rows (`a(sss)`).
    static func contextListings(_ contexts: DBusValue) -> [ContextListing] {
        guard case .array(_, let rows) = contexts else { return [] }
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
        subscribeToDaemon(MenuBusAPI.Menu.layoutChanged) { [weak self] message, revision, items in
            guard let self, let path = message.path, let menu = try? self.menu(revision, items) else { return }
            handler(PresentedMenu(path: ObjectPath(stringLiteral: path)), menu)
        }
        subscribeToDaemon(MenuBusAPI.Menu.closed) { [weak self] message in
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

    /// Calls a method of a presented menu (`MenuBusAPI.Menu`).
    func callMenu<each In, each Out>(
        _ menu: PresentedMenu, _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ arguments: repeat each In
    ) throws -> (repeat each Out) {
        try connection.callBlocking(method, destination: MenuBusNames.busName, path: menu.path,
                                    repeat each arguments, timeout: callTimeout)
    }

    /// A composed menu, read and checked only when its reply's bytes differ
    /// from those of the last few read (menubusd sends the same bytes while
    /// the menu is equal, so a presenter asking again mostly gets them).
    private func composedMenu(
        _ method: DeclaredMethod<ArgumentList<String, String, DBusValue>, ArgumentList<UInt32, DBusValue>>,
        _ owner: String, _ contextId: String, _ options: DBusValue
    ) throws -> Menu {
        let reply = try connection.callBlockingReply(method, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                                     owner, contextId, options, timeout: callTimeout)
        let signature = reply.signature
        let body = reply.body
        if let body, let index = recentMenus.firstIndex(where: { $0.signature == signature && $0.body == body }) {
            let known = recentMenus.remove(at: index)
            recentMenus.insert(known, at: 0)
            return known.menu
        }
        let (revision, items) = try method.outputs.decode(reply, member: method.name)
        let menu = try menu(revision, items)
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

    func menu(_ revision: UInt32, _ items: DBusValue) throws -> Menu {
        Menu(revision: revision, elements: try Wire.decodeComposedMenu(items, field: "items"))
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

/// Previews and button menus: what a presenter draws above a presented
/// menu and chooses there, and what a toolbar button runs on a tap.
extension MenuBusClient {
    /// The preview a presented menu serves (its `Preview` property): nil
    /// when the context has none or the menu was presented `compact`.
    public func preview(of menu: PresentedMenu) throws -> ContextPreview? {
        let value = try connection.callBlocking(FreedesktopAPI.get, destination: MenuBusNames.busName, path: menu.path,
                                                MenuBusNames.menuInterface, "Preview", timeout: callTimeout)
        guard case .array(_, let entries) = value, !entries.isEmpty else { return nil }
        do throws(ModelError) {
            return try ContextPreview(wire: value, field: "Preview")
        } catch {
            throw error.busError
        }
    }

    /// Chooses the menu's preview (UIKit's preview commit): the owner hears
    /// `ActionInvoked` of `menubus:preview`, and the menu closes.
    public func choosePreview(_ menu: PresentedMenu, platformData: [String: DBusValue] = [:]) throws {
        try activate(menu, itemId: ElementID.preview, platformData: platformData)
    }

    /// Runs a button context's primary action, as a tap on it: its owner
    /// hears `ActionInvoked` of the primary item's id. Press and hold is
    /// `present(owner:contextId:kind:)`.
    public func activatePrimaryAction(owner: String = "", contextId: String,
                                      platformData: [String: DBusValue] = [:]) throws {
        try callManager(MenuBusAPI.Manager.activatePrimaryAction, owner, contextId, platformData.dbusValue)
    }
}

extension MenuBusClient {
    /// Seconds menubusd gives the focused app to show its menu.
    static let showMenuWait: Double = 5

    /// `ShowMenuForFocus`: asks the app whose field has the keyboard focus
    /// to show MenuBus's edit menu there, as a desktop shortcut does;
    /// `timestamp` is the input event's time, passed on to the app. Returns
    /// the app and context that showed it. Throws `NoSuchContext` when no
    /// field that takes part has the focus, `ClientFailed` when the app did
    /// not show it, `AccessDenied` in a sandbox. Waits for the app's answer
    /// too: up to `callTimeout` plus five seconds.
    public func showMenuForFocus(timestamp: UInt32? = nil) throws -> (appId: String, contextId: String) {
        let options: [String: DBusValue] = timestamp.map { ["timestamp": .uint32($0)] } ?? [:]
        return try connection.callBlocking(MenuBusAPI.Manager.showMenuForFocus, destination: MenuBusNames.busName,
                                           path: MenuBusNames.managerPath, options.dbusValue,
                                           timeout: callTimeout + Self.showMenuWait)
    }
}
