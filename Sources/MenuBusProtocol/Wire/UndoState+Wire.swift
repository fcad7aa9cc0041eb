import MenuBusModel
import MenuBusDBus

/// The undo state `a{sv}` of `GetUndoState` and `UndoStateChanged`:
/// `can-undo` b, `can-redo` b, `undo-title` s, `redo-title` s,
/// `undo-count` u, `redo-count` u, `clean` b, `dropped` u, `group-depth` u,
/// `group-name` s (`""` when no group is open). The titles are the action
/// names with the command before them ("Undo Typing"; "Undo" for an unnamed
/// step or none), so the names read back from them.
extension UndoState {
    package var wireValue: DBusValue {
        .array("{sv}", [
            WireValue.entry("can-undo", .boolean(canUndo)),
            WireValue.entry("can-redo", .boolean(canRedo)),
            WireValue.entry("undo-title", .string(undoTitle)),
            WireValue.entry("redo-title", .string(redoTitle)),
            WireValue.entry("undo-count", .uint32(UInt32(clamping: undoCount))),
            WireValue.entry("redo-count", .uint32(UInt32(clamping: redoCount))),
            WireValue.entry("clean", .boolean(clean)),
            WireValue.entry("dropped", .uint32(UInt32(clamping: dropped))),
            WireValue.entry("group-depth", .uint32(UInt32(clamping: groupDepth))),
            WireValue.entry("group-name", .string(openGroup ?? "")),
        ])
    }

    /// Reads the daemon's answer; a missing or mistyped key of the eight
    /// docs/API.md promises is `Failed`, the group keys default to none.
    package init(wire value: DBusValue) throws(BusError) {
        let dict: [String: DBusValue]
        do { dict = try [String: DBusValue](dbusValue: value) } catch { throw .failed("undo state: not an a{sv}") }
        func get<T>(_ key: String, _ extract: (DBusValue) -> T?) throws(BusError) -> T {
            guard let raw = dict[key], let value = extract(raw) else {
                throw .failed("undo state without '\(key)'")
            }
            return value
        }
        func bool(_ value: DBusValue) -> Bool? { if case .boolean(let v) = value { v } else { nil } }
        func string(_ value: DBusValue) -> String? { if case .string(let v) = value { v } else { nil } }
        func count(_ value: DBusValue) -> Int? { if case .uint32(let v) = value { Int(v) } else { nil } }
        func name(_ title: String, _ command: StandardCommand) -> String? {
            title.hasPrefix(command.title + " ") ? String(title.dropFirst(command.title.count + 1)) : nil
        }
        let canUndo = try get("can-undo", bool), canRedo = try get("can-redo", bool)
        let undoTitle = try get("undo-title", string), redoTitle = try get("redo-title", string)
        let group = dict["group-name"].flatMap(string) ?? ""
        self.init(canUndo: canUndo, canRedo: canRedo,
                  undoActionName: canUndo ? name(undoTitle, .undo) : nil,
                  redoActionName: canRedo ? name(redoTitle, .redo) : nil,
                  undoCount: try get("undo-count", count), redoCount: try get("redo-count", count),
                  clean: try get("clean", bool), dropped: try get("dropped", count),
                  groupDepth: dict["group-depth"].flatMap(count) ?? 0, openGroup: group.isEmpty ? nil : group)
    }
}
