import MenuBusModel
import MenuBusDBus

/// The undo state `a{sv}` of `GetUndoState` and `UndoStateChanged`:
/// `can-undo` b, `can-redo` b, `undo-title` s, `redo-title` s,
/// `undo-name` s, `redo-name` s, `undo-count` u, `redo-count` u, `clean` b,
/// `dropped` u, `group-depth` u, `group-name` s (`""` when no group is
/// open). The titles are the edit menu's, in `titles`' language ("Undo
/// Typing", ru "Отменить Typing"; "Undo" for an unnamed step or none); the
/// names are the steps' own action names (`""` when none).
extension UndoState {
    package func wireValue(titles: SystemTitles = .english) -> DBusValue {
        .array("{sv}", [
            WireValue.entry("can-undo", .boolean(canUndo)),
            WireValue.entry("can-redo", .boolean(canRedo)),
            WireValue.entry("undo-title", .string(titles.undo(undoActionName))),
            WireValue.entry("redo-title", .string(titles.redo(redoActionName))),
            WireValue.entry("undo-name", .string(undoActionName ?? "")),
            WireValue.entry("redo-name", .string(redoActionName ?? "")),
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
    /// The names come from `undo-name`/`redo-name`; from a daemon without
    /// them, out of English titles.
    package init(wire value: DBusValue) throws(BusError) {
        self = try Self.decode(wire: value).state
    }

    /// As `init(wire:)`, with the titles as the daemon gave them.
    package static func decode(wire value: DBusValue) throws(BusError) -> (state: UndoState, undoTitle: String, redoTitle: String) {
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
        func actionName(_ key: String, _ title: String, _ command: StandardCommand) -> String? {
            guard let stated = dict[key].flatMap(string) else { return name(title, command) }
            return stated.isEmpty ? nil : stated
        }
        let canUndo = try get("can-undo", bool), canRedo = try get("can-redo", bool)
        let undoTitle = try get("undo-title", string), redoTitle = try get("redo-title", string)
        let group = dict["group-name"].flatMap(string) ?? ""
        let state = UndoState(canUndo: canUndo, canRedo: canRedo,
                              undoActionName: canUndo ? actionName("undo-name", undoTitle, .undo) : nil,
                              redoActionName: canRedo ? actionName("redo-name", redoTitle, .redo) : nil,
                              undoCount: try get("undo-count", count), redoCount: try get("redo-count", count),
                              clean: try get("clean", bool), dropped: try get("dropped", count),
                              groupDepth: dict["group-depth"].flatMap(count) ?? 0, openGroup: group.isEmpty ? nil : group)
        return (state, undoTitle, redoTitle)
    }
}
