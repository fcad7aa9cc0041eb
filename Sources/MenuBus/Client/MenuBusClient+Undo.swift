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
        let reply = try callManager("RegisterUndo", MenuBusClient.registerUndoArguments(document, actionName, undo, redo, mergeKey))
        guard let first = reply.first, case .uint32(let count) = first else { throw unexpected("RegisterUndo", reply) }
        return count
    }

    /// Records a step without waiting: `completion` runs with the undo count
    /// (or the error) while `run` pumps the connection. An app that records a
    /// step per keystroke keeps typing while menubusd journals.
    public func registerUndo(document: String, actionName: String, undo: [UInt8], redo: [UInt8],
                             mergeKey: String = "", completion: @escaping (Result<UInt32, BusError>) -> Void) {
        connection.call(destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
                        interface: MenuBusNames.managerInterface, member: "RegisterUndo",
                        arguments: MenuBusClient.registerUndoArguments(document, actionName, undo, redo, mergeKey),
                        timeout: callTimeout) { result in
            completion(result.flatMap { values in
                guard let first = values.first, case .uint32(let count) = first else {
                    return .failure(BusError.failed("menubusd answered RegisterUndo with the wrong type"))
                }
                return .success(count)
            })
        }
    }

    /// Opens a group: everything until the matching `endUndoGroup` is one step named by the outermost group.
    public func beginUndoGroup(document: String, actionName: String) throws {
        _ = try callManager("BeginUndoGroup", [.string(document), .string(actionName)])
    }

    public func endUndoGroup(document: String) throws {
        _ = try callManager("EndUndoGroup", [.string(document)])
    }

    /// Moves the newest step to redo; its undo payloads come newest first.
    public func undo(document: String) throws -> UndoMove {
        try move(callManager("Undo", [.string(document)]))
    }

    /// Moves the oldest redo step back; its redo payloads come oldest first.
    public func redo(document: String) throws -> UndoMove {
        try move(callManager("Redo", [.string(document)]))
    }

    public func undoState(document: String) throws -> UndoState {
        let reply = try callManager("GetUndoState", [.string(document)])
        guard let first = reply.first else { throw unexpected("GetUndoState", reply) }
        return try UndoState(wire: first)
    }

    /// Keeps at most `levels` steps (0: unlimited).
    public func setUndoLimit(document: String, levels: UInt32) throws {
        _ = try callManager("SetUndoLimit", [.string(document), .uint32(levels)])
    }

    public func markClean(document: String) throws {
        _ = try callManager("MarkClean", [.string(document)])
    }

    /// Forgets the document's history, journal included.
    public func clearUndo(document: String) throws {
        _ = try callManager("ClearUndo", [.string(document)])
    }

    /// Calls `handler` with (document, state) whenever one of this app's documents changes.
    public func observeUndoState(_ handler: @escaping (String, UndoState) -> Void) throws {
        _ = try resolveDaemonOwner()
        subscribeToDaemon(interface: MenuBusNames.managerInterface, member: "UndoStateChanged") { message in
            guard let args = try? message.arguments(), args.count == 3, let document = args[1].stringValue,
                  let state = try? UndoState(wire: args[2]) else { return }
            handler(document, state)
        }
        try syncWithBus()
    }

    /// `RegisterUndo`'s arguments; `options` holds `merge-key` when there is one.
    static func registerUndoArguments(_ document: String, _ actionName: String, _ undo: [UInt8], _ redo: [UInt8],
                                      _ mergeKey: String) -> [DBusValue] {
        let options: DBusValue = mergeKey.isEmpty ? .array("{sv}", [])
            : .array("{sv}", [.dictEntry(.string("merge-key"), .variant(.string(mergeKey)))])
        return [.string(document), .string(actionName), .bytes(undo), .bytes(redo), options]
    }

    private func move(_ reply: [DBusValue]) throws -> UndoMove {
        guard reply.count == 2, case .string(let name) = reply[0], let payloads = try? [[UInt8]](dbusValue: reply[1]) else {
            throw unexpected("Undo", reply)
        }
        return UndoMove(actionName: name, payloads: payloads)
    }
}
