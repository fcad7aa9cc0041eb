#if canImport(Glibc)
import Glibc
#endif
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

/// A step `undo` or `redo` moved: its name and the payloads to apply, in order.
public struct UndoMove: Hashable, Sendable {
    public let actionName: String
    public let payloads: [[UInt8]]
}

extension MenuBusClient {
    /// Records a step of `document` (this app id's); returns the undo count.
    /// Steps with the same non-empty `mergeKey` in a row merge into one.
    @discardableResult
    public func registerUndo(document: String, actionName: String, undo: [UInt8], redo: [UInt8],
                             mergeKey: String = "") throws -> UInt32 {
        try callManager(MenuBusAPI.Manager.registerUndo, document, actionName, undo, redo, MenuBusClient.undoOptions(mergeKey))
    }

    /// Records a step without waiting: `completion` runs with the undo count
    /// (or the error) while `run` pumps the connection. An app that records a
    /// step per keystroke keeps typing while menubusd journals.
    public func registerUndo(document: String, actionName: String, undo: [UInt8], redo: [UInt8],
                             mergeKey: String = "", completion: @escaping (Result<UInt32, BusError>) -> Void) {
        connection.call(MenuBusAPI.Manager.registerUndo, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                        document, actionName, undo, redo, MenuBusClient.undoOptions(mergeKey),
                        timeout: callTimeout, completion: completion)
    }

    /// Opens a group: everything until the matching `endUndoGroup` is one step named by the outermost group.
    public func beginUndoGroup(document: String, actionName: String) throws {
        try callManager(MenuBusAPI.Manager.beginUndoGroup, document, actionName)
    }

    public func endUndoGroup(document: String) throws {
        try callManager(MenuBusAPI.Manager.endUndoGroup, document)
    }

    /// Moves the newest step to redo; its undo payloads come newest first.
    public func undo(document: String) throws -> UndoMove {
        let (actionName, payloads) = try callManager(MenuBusAPI.Manager.undo, document)
        return UndoMove(actionName: actionName, payloads: payloads)
    }

    /// Moves the oldest redo step back; its redo payloads come oldest first.
    public func redo(document: String) throws -> UndoMove {
        let (actionName, payloads) = try callManager(MenuBusAPI.Manager.redo, document)
        return UndoMove(actionName: actionName, payloads: payloads)
    }

    public func undoState(document: String) throws -> UndoState {
        try undoStateAndTitles(document: document).state
    }

    /// The state and the menu titles menubusd gave it, in the session's
    /// language (`UndoState.undoTitle` is English): for menubus-cli.
    package func undoStateAndTitles(document: String) throws -> (state: UndoState, undoTitle: String, redoTitle: String) {
        try UndoState.decode(wire: callManager(MenuBusAPI.Manager.getUndoState, document))
    }

    /// Keeps at most `levels` steps (0: unlimited).
    public func setUndoLimit(document: String, levels: UInt32) throws {
        try callManager(MenuBusAPI.Manager.setUndoLimit, document, levels)
    }

    public func markClean(document: String) throws {
        try callManager(MenuBusAPI.Manager.markClean, document)
    }

    /// Forgets the document's history, journal included.
    public func clearUndo(document: String) throws {
        try callManager(MenuBusAPI.Manager.clearUndo, document)
    }

    /// Calls `handler` with (document, state) whenever one of this app's documents changes.
    public func observeUndoState(_ handler: @escaping (String, UndoState) -> Void) throws {
        _ = try resolveDaemonOwner()
        subscribeToDaemon(MenuBusAPI.Manager.undoStateChanged) { _, _, document, stateValue in
            guard let state = try? UndoState(wire: stateValue) else { return }
            handler(document, state)
        }
        try syncWithBus()
    }

    /// `RegisterUndo`'s `options`: `merge-key` when there is one.
    static func undoOptions(_ mergeKey: String) -> DBusValue {
        mergeKey.isEmpty ? .array("{sv}", [])
            : .array("{sv}", [.dictEntry(.string("merge-key"), .variant(.string(mergeKey)))])
    }
}

/// One message to or from menubusd, as a monitor sees it.
public struct MonitoredMessage: Sendable {
    public enum Kind: String, Sendable {
        case methodCall = "method_call", methodReturn = "method_return", error, signal
    }

    /// Seconds since 1970, when this process read it.
    public let time: Double
    public let kind: Kind
    public let sender: String?
    public let destination: String?
    /// nil for replies and errors.
    public let path: String?
    public let interface: String?
    /// The member of a call or signal; the error name of an error.
    public let member: String?
    public let serial: UInt32
    public let replySerial: UInt32
    /// Every argument, decoded; empty when they use a type MenuBus does not speak.
    public let arguments: [DBusValue]
}

/// How `monitorMenuBus` sees messages.
public enum MonitorMode: String, Sendable {
    /// `org.freedesktop.DBus.Monitoring.BecomeMonitor`: every matching message.
    case monitor
    /// Match rules with `eavesdrop='true'`, where the bus refused BecomeMonitor.
    case eavesdrop
}

extension MenuBusClient {
    /// Watches every message sent by or to menubusd: calls to it and their
    /// replies, its calls to apps and providers, and its signals. The
    /// connection only listens from then on (a monitor may send nothing);
    /// pump it with `run` or `runForever`.
    @discardableResult
    public func monitorMenuBus(_ handler: @escaping (MonitoredMessage) -> Void) throws -> MonitorMode {
        let owner = try resolveDaemonOwner()
        let deliver: (Message) -> Void = { message in
            guard let kind = message.kind else { return }
            let monitored: MonitoredMessage.Kind
            switch kind {
            case .methodCall: monitored = .methodCall
            case .methodReturn: monitored = .methodReturn
            case .error: monitored = .error
            case .signal: monitored = .signal
            }
            // The bus's own NameAcquired/NameLost to this connection are not MenuBus's.
            if message.sender == "org.freedesktop.DBus", message.destination == self.uniqueName { return }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            handler(MonitoredMessage(
                time: Double(now.tv_sec) + Double(now.tv_nsec / 1_000_000) / 1000, kind: monitored,
                sender: message.sender, destination: message.destination, path: message.path,
                interface: message.interface, member: kind == .error ? message.errorName : message.member,
                serial: message.serial, replySerial: message.replySerial,
                arguments: (try? message.arguments()) ?? []))
        }
        // The well-known name matches whichever menubusd owns it when a
        // message goes, so the monitor follows the daemon across a restart.
        let rules = ["sender='\(MenuBusNames.busName)'", "destination='\(owner)'", "destination='\(MenuBusNames.busName)'"]
        do {
            _ = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                            interface: "org.freedesktop.DBus.Monitoring", member: "BecomeMonitor",
                                            arguments: [.array("s", rules.map { .string($0) }), .uint32(0)],
                                            timeout: callTimeout)
            connection.monitor = deliver
            return .monitor
        } catch let error as BusError where error.name != BusError.Standard.disconnected {
            // Refused (an older bus, or a policy): eavesdrop with match rules instead.
            for rule in rules {
                for type in ["method_call", "method_return", "error", "signal"] {
                    _ = try connection.callBlocking(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                    interface: "org.freedesktop.DBus", member: "AddMatch",
                                                    arguments: [.string("type='\(type)',eavesdrop='true',\(rule)")],
                                                    timeout: callTimeout)
                }
            }
            connection.monitor = deliver
            return .eavesdrop
        }
    }
}
