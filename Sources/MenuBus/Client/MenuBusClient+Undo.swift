import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

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
