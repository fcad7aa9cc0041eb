import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// A connection to menubusd for Swift apps, presenters and tools.
///
/// Every call blocks the calling thread until menubusd answers; menubusd
/// never calls back into a caller while it waits, so this cannot deadlock.
/// Callbacks from menubusd (actions, commands) arrive while `process` or
/// `run` pumps the connection.
public final class MenuBusClient {
    package let loop = MessageLoop()
    package let connection: Connection
    /// Seconds a call waits for menubusd before failing with `Timeout`.
    public var callTimeout: Double = 5

    /// One of this app's own items was chosen in a menu.
    public var onAction: ((ActionInvocation) -> Void)?
    /// A standard command was chosen in a menu of this app's contexts.
    public var onCommand: ((CommandInvocation) -> Void)?
    /// One of this app's menus was presented: (contextId, kind, menu path),
    /// as `QMenu::aboutToShow`; nothing is answered.
    public var onMenuPresented: ((String, MenuKind, String) -> Void)?
    /// Fills a deferred element: (contextId, elementId) to the elements that replace it.
    public var provideElements: ((String, String) throws -> [MenuElement])?
    /// Fills a deferred element later: (contextId, elementId, reply); answer
    /// through `reply` from any thread, while other calls go on. Wins over
    /// `provideElements`. See `provideElementsAsync` for an async handler.
    public var provideElementsLater: ((String, String, DeferredReply) -> Void)?
    /// One of this app's own items was chosen; answer through the reply
    /// later, from any thread (menubusd does not wait). Wins over `onAction`.
    /// See `onActionAsync` for an async handler.
    public var onActionLater: ((ActionInvocation, CallReply) -> Void)?
    /// A standard command was chosen; answer through the reply later, from
    /// any thread (menubusd does not wait). Wins over `onCommand`. See
    /// `onCommandAsync` for an async handler.
    public var onCommandLater: ((CommandInvocation, CallReply) -> Void)?
    /// Shows the edit menu of a focused context at its selection or caret:
    /// (contextId, platformData, which may hold `timestamp`). A desktop
    /// shortcut asked (`ShowMenuForFocus`); return once the menu is shown,
    /// throw when it cannot be. Unset, the shortcut cannot show this app's menu.
    public var onShowEditMenu: ((String, [String: DBusValue]) throws -> Void)?
    /// The selected text of a context, for providers when the selection carried none.
    public var selectedText: ((String) throws -> String)?
    var providerHandlers: [String: (String, [String: DBusValue]) throws -> String] = [:]
    /// Providers that answer `Process` later (`registerProvider(_:path:processLater:)`).
    var providerLaterHandlers: [String: (String, [String: DBusValue], ProviderReply) -> Void] = [:]
    /// The last composed menus read, newest first, with their replies' bodies (MenuBusClient+Menus.swift).
    var recentMenus: [(body: [UInt8], signature: Signature, menu: Menu)] = []
    /// The unique name of menubusd's connection, once asked: callbacks and
    /// signals from anyone else are refused. It follows `NameOwnerChanged`
    /// of `org.menubus.MenuBus1`, so a restarted daemon is believed at once.
    var daemonOwner: String?

    /// menubusd came back (a crash under `Restart=`, an upgrade, `--replace`)
    /// and this client has registered, republished its contexts and
    /// selections and offered its providers again. Menus it had presented
    /// are gone (their `closed` handlers ran): present again if needed.
    public var onDaemonRestart: (() -> Void)?
    /// menubusd left the bus; `onDaemonRestart` follows when a new one takes the name.
    public var onDaemonLost: (() -> Void)?
    /// What to say again to a new daemon (the restart extension below).
    var replay = ReplayState()

    /// Connects to `address`, or to the session bus.
    public init(address: String? = nil) throws {
        connection = try Connection(address: address, loop: loop)
        connection.disconnected = { [loop] in loop.stop() }
        followDaemonOwner()
    }

    /// A dropped client leaves the bus, so menubusd drops its contexts.
    deinit {
        connection.close()
    }

    /// This connection's unique name on the bus.
    public var uniqueName: String { connection.uniqueName }

    /// Calls a manager method (`MenuBusAPI.Manager`) and returns its typed reply.
    func callManager<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>, _ arguments: repeat each In
    ) throws -> (repeat each Out) {
        try connection.callBlocking(method, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                    repeat each arguments, timeout: callTimeout)
    }

    package func property(_ name: String) throws -> DBusValue {
        try connection.callBlocking(FreedesktopAPI.get, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                    MenuBusNames.managerInterface, name, timeout: callTimeout)
    }

    /// The daemon's API version (the `Version` property).
    public func apiVersion() throws -> UInt32 {
        let value = try property("Version")
        guard case .uint32(let version) = value else {
            throw BusError.failed("Version has type '\(value.signature)'")
        }
        return version
    }

    /// The daemon's counters (the `Stats` property), in the order it sends them.
    public func stats() throws -> [(name: String, value: DBusValue)] {
        let value = try property("Stats")
        guard let entries = value.dictEntries else {
            throw BusError.failed("Stats has type '\(value.signature)'")
        }
        return entries.compactMap { entry in
            guard case .string(let name) = entry.key else { return nil }
            return (name, entry.value.unwrapped)
        }
    }

    /// Pumps the connection until `done()` or `timeout` seconds; returns `done()`.
    @discardableResult
    public func run(until done: () -> Bool, timeout: Double) -> Bool {
        loop.run(until: done, timeout: timeout)
    }
}

extension MenuBusClient {
    /// Leaves the bus; menubusd drops this connection's contexts and menus.
    public func close() {
        connection.close()
    }
}

extension MenuBusClient {
    /// `org.freedesktop.DBus.Peer.Ping` to menubusd: is it there, and how fast.
    public func ping() throws {
        try connection.callBlocking(FreedesktopAPI.ping, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                                    timeout: callTimeout)
    }
}

extension MenuBusClient {
    /// False once the bus connection is closed or lost.
    public var isConnected: Bool { connection.isConnected }
}

extension MenuBusClient {
    /// menubusd's unique name on the bus (asked once, then remembered).
    func resolveDaemonOwner() throws -> String {
        if let daemonOwner { return daemonOwner }
        try ping()  // starts menubusd by D-Bus activation when it is not running yet
        let reply = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                                arguments: [.string(MenuBusNames.busName)], timeout: callTimeout)
        guard let owner = reply.first?.stringValue else { throw unexpected("GetNameOwner", reply) }
        daemonOwner = owner
        return owner
    }

    /// Refuses a callback that does not come from menubusd.
    func checkFromDaemon(_ call: MethodCall) throws {
        guard let daemonOwner, call.sender == daemonOwner else {
            throw BusError(.accessDenied, "only menubusd calls this object")
        }
    }
}

extension MenuBusClient {
    /// `org.menubus.MenuBus1.Client`, served at the path given to `register`.
    package func clientInterface() -> Interface {
        var client = Interface(MenuBusNames.clientInterface)
        typealias API = MenuBusAPI.Client
        client.deferrableMethod(API.actionInvoked) { [weak self] call, contextId, itemId, platformData in
            try self?.checkFromDaemon(call)
            let invocation = ActionInvocation(contextId: contextId, itemId: itemId,
                                              platformData: try [String: DBusValue](dbusValue: platformData))
            if let self, let later = self.onActionLater {
                later(invocation, CallReply(call.deferReply(), loop: self.loop))
                return nil
            }
            self?.onAction?(invocation)
            return ()
        }
        client.deferrableMethod(API.performCommand) { [weak self] call, contextId, command, arguments in
            try self?.checkFromDaemon(call)
            let invocation = CommandInvocation(contextId: contextId, name: command,
                                               arguments: try [String: DBusValue](dbusValue: arguments))
            if let self, let later = self.onCommandLater {
                later(invocation, CallReply(call.deferReply(), loop: self.loop))
                return nil
            }
            self?.onCommand?(invocation)
            return ()
        }
        client.method(API.menuPresented) { [weak self] call, contextId, kind, menu in
            try self?.checkFromDaemon(call)
            if let menuKind = MenuKind(rawValue: kind) { self?.onMenuPresented?(contextId, menuKind, menu.rawValue) }
        }
        client.deferrableMethod(API.provideElements) { [weak self] call, contextId, elementId in
            try self?.checkFromDaemon(call)
            if let self, let later = self.provideElementsLater {
                later(contextId, elementId, DeferredReply(call.deferReply(), loop: self.loop))
                return nil
            }
            guard let provide = self?.provideElements else {
                throw BusError(.noSuchItem, "this app provides no deferred elements")
            }
            return Wire.encode(try provide(contextId, elementId))
        }
        client.method(API.getSelectedText) { [weak self] call, contextId in
            try self?.checkFromDaemon(call)
            guard let selectedText = self?.selectedText else {
                throw BusError(.noSuchContext, "this app does not share its selected text")
            }
            return try selectedText(contextId)
        }
        client.method(API.showEditMenu) { [weak self] call, contextId, platformData in
            try self?.checkFromDaemon(call)
            guard let show = self?.onShowEditMenu else {
                throw BusError(name: BusError.Standard.unknownMethod, message: "this app does not show its edit menu on request")
            }
            try show(contextId, try [String: DBusValue](dbusValue: platformData))
        }
        return client
    }
}

/// What a client told menubusd that lives only in the daemon's memory, so
/// that it can be said again to a new daemon after a restart.
struct ReplayState {
    struct PublishedContext {
        var info: ContextInfo
        var items: [MenuElement]
        var selection: Selection?
    }

    var registration: (appId: String, clientPath: ObjectPath)?
    var contexts: [String: PublishedContext] = [:]
    var contextOrder: [String] = []
    var providers: [String: (description: ProviderInfo, path: ObjectPath)] = [:]
    var providerOrder: [String] = []
    /// Menus this client presented and that have not closed yet.
    var presented: Set<ObjectPath> = []
    var closedHandlers: [(PresentedMenu) -> Void] = []

    mutating func published(_ id: String, _ info: ContextInfo, _ items: [MenuElement]) {
        if contexts[id] == nil { contextOrder.append(id) }
        contexts[id] = PublishedContext(info: info, items: items, selection: nil)
    }

    mutating func removed(_ id: String) {
        contexts[id] = nil
        contextOrder.removeAll { $0 == id }
    }
}

extension MenuBusClient {
    /// Follows the owner of `org.menubus.MenuBus1` from the start, so that
    /// callbacks from a new daemon are accepted and what this client said
    /// to the old one is said again.
    func followDaemonOwner() {
        connection.subscribe(interface: "org.freedesktop.DBus", member: "NameOwnerChanged", path: "/org/freedesktop/DBus",
                             sender: "org.freedesktop.DBus", argument0: MenuBusNames.busName) { [weak self] message in
            guard let self, let args = try? message.arguments(), args.count == 3,
                  args[0].stringValue == MenuBusNames.busName, let old = args[1].stringValue,
                  let new = args[2].stringValue else { return }
            self.daemonOwnerChanged(from: old, to: new)
        }
    }

    /// Whether a menubusd owns the name, as far as this client has heard.
    public var isDaemonRunning: Bool { daemonOwner != nil }

    func daemonOwnerChanged(from old: String, to new: String) {
        if !old.isEmpty, daemonOwner == old || daemonOwner == nil {
            daemonOwner = nil
            // The old daemon's presented menus died with it.
            let menus = replay.presented
            replay.presented.removeAll()
            for path in menus.sorted(by: { $0.rawValue < $1.rawValue }) {
                for closed in replay.closedHandlers { closed(PresentedMenu(path: path)) }
            }
            onDaemonLost?()
        }
        guard !new.isEmpty, new != daemonOwner else { return }
        daemonOwner = new
        do {
            try republish()
            onDaemonRestart?()
        } catch {
            Log.warning("menubusd restarted as \(new), but registering again failed: \(error)")
        }
    }

    /// Registers, publishes every context with its last items and selection,
    /// and offers every provider again, in the order they were first made.
    func republish() throws {
        if let registration = replay.registration {
            try callManager(MenuBusAPI.Manager.register, registration.appId, registration.clientPath, .array("{sv}", []))
        }
        for id in replay.contextOrder {
            guard let context = replay.contexts[id] else { continue }
            _ = try callManager(MenuBusAPI.Manager.publishContext, id, Wire.encode(context.info), Wire.encode(context.items))
            if let selection = context.selection {
                try callManager(MenuBusAPI.Manager.updateSelection, id, Wire.encode(selection))
            }
        }
        for id in replay.providerOrder {
            guard let provider = replay.providers[id] else { continue }
            try callManager(MenuBusAPI.Manager.registerProvider, id, provider.path, provider.description.wireValue)
        }
    }

    /// Routes signals from whichever connection owns `org.menubus.MenuBus1`
    /// now: the bus matches the well-known name against its current owner,
    /// and the handler sees only messages from the owner this client follows.
    func subscribeToDaemon(interface: String? = nil, member: String? = nil,
                           _ handler: @escaping (Message) -> Void) {
        connection.subscribe(interface: interface, member: member, busSender: MenuBusNames.busName) { [weak self] message in
            guard let self, let owner = self.daemonOwner, message.sender == owner else { return }
            handler(message)
        }
    }

    /// `subscribeToDaemon` for a declared signal: `handler` gets its values;
    /// one whose signature differs from the declaration is dropped.
    func subscribeToDaemon<each Value>(_ signal: DeclaredSignal<ArgumentList<repeat each Value>>,
                                       _ handler: @escaping (Message, repeat each Value) -> Void) {
        let arguments = signal.arguments, member = signal.name
        subscribeToDaemon(interface: signal.interface, member: signal.name) { message in
            guard let values = try? arguments.decode(message, member: member) else { return }
            handler(message, repeat each values)
        }
    }
}
