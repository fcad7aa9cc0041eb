import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

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
