import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// A document's undo state, as menubusd reports it.
public struct UndoStateInfo: Hashable, Sendable {
    public let canUndo: Bool
    public let canRedo: Bool
    /// "Undo Typing", or bare "Undo".
    public let undoTitle: String
    public let redoTitle: String
    public let undoCount: UInt32
    public let redoCount: UInt32
    /// At the point `markClean` recorded.
    public let clean: Bool
    /// Steps dropped by the level limit or the byte quota.
    public let dropped: UInt32

    init(_ value: DBusValue) throws {
        let dict = try [String: DBusValue](dbusValue: value)
        func get<T>(_ key: String, _ extract: (DBusValue) -> T?) throws -> T {
            guard let raw = dict[key], let value = extract(raw) else {
                throw BusError.failed("undo state without '\(key)'")
            }
            return value
        }
        canUndo = try get("can-undo") { if case .boolean(let v) = $0 { v } else { nil } }
        canRedo = try get("can-redo") { if case .boolean(let v) = $0 { v } else { nil } }
        undoTitle = try get("undo-title") { if case .string(let v) = $0 { v } else { nil } }
        redoTitle = try get("redo-title") { if case .string(let v) = $0 { v } else { nil } }
        undoCount = try get("undo-count") { if case .uint32(let v) = $0 { v } else { nil } }
        redoCount = try get("redo-count") { if case .uint32(let v) = $0 { v } else { nil } }
        clean = try get("clean") { if case .boolean(let v) = $0 { v } else { nil } }
        dropped = try get("dropped") { if case .uint32(let v) = $0 { v } else { nil } }
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

    public func undoState(document: String) throws -> UndoStateInfo {
        try UndoStateInfo(callManager(MenuBusAPI.Manager.getUndoState, document))
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
    public func observeUndoState(_ handler: @escaping (String, UndoStateInfo) -> Void) throws {
        _ = try resolveDaemonOwner()
        subscribeToDaemon(MenuBusAPI.Manager.undoStateChanged) { _, _, document, stateValue in
            guard let state = try? UndoStateInfo(stateValue) else { return }
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
