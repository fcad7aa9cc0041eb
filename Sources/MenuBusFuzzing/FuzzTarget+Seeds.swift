#if DEBUG
@testable import MenuBusDBus
import MenuBusModel
@testable import MenuBusProtocol
@testable import MenuBusUndo

extension FuzzTarget {
    /// Small well-formed inputs each target starts from (`menubus-fuzz
    /// --seeds` writes them into Fuzz/corpus/TARGET/; the key-file and JSON
    /// seeds there are copies of the repository's own files).
    package var seeds: [(name: String, bytes: [UInt8])] {
        switch self {
        case .reader:
            let values: [(String, [DBusValue])] = [
                ("string", [.string("hello"), .uint32(7)]),
                ("scalars", [.byte(1), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .int64(-5), .uint64(6), .double(0.5)]),
                ("names", [.objectPath("/org/menubus/MenuBus1"), .signature("a{sv}")]),
                ("dict", [Seeds.dict(["x": .int32(1), "s": .string("two"), "v": .variant(.array("i", [.int32(3)]))])]),
                ("bytes-struct", [.bytes([1, 2, 3]), .structure([.string("a"), .array("s", [.string("b")])])]),
                ("elements", [.string("context"), Seeds.elements]),
            ]
            return values.map { ("seed-\($0.0)", FuzzMessage.input($0.1)) }
        case .cursor:
            // The string, then the elements' array: struct, two strings, the dictionary.
            let body = FuzzMessage.body(of: [.string("context"), Seeds.elements])
            let program: [UInt8] = [1, 5 | 3 << 4, 9, 1, 2, 5 | 3 << 4, 9, 3, 7, 6, 6, 8, 8 | 2 << 4, 0, 4]
            return [("seed-elements", [0, UInt8(program.count)] + program + body),
                    ("seed-limited", [2 << 1, UInt8(program.count)] + program + body)]
        case .elements:
            return [("seed-menu", [0] + FuzzMessage.body(of: [Seeds.elements]))]
        case .context:
            let contexts = [ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true, hasContent: true),
                            ContextInfo(kind: .image, contentTypes: ["image/png"])]
            return contexts.enumerated().map { ("seed-\($0.offset)", [0] + FuzzMessage.body(of: [Wire.encode($0.element)])) }
        case .selection:
            let selections = [Selection(kind: .range, length: 5, text: "hello"), Selection(kind: .caret)]
            return selections.enumerated().map { ("seed-\($0.offset)", [0] + FuzzMessage.body(of: [Wire.encode($0.element)])) }
        case .options:
            let options: [[String: DBusValue]] = [
                ["x": .int32(10), "y": .int32(20), "locale": .string("de_DE")],
                ["anchor": WireValue.rectValue(Rect(x: 1, y: 2, width: 30, height: 40)),
                 "omit-commands": .array("s", [.string("copy"), .string("paste")])],
            ]
            return options.enumerated().map { ("seed-\($0.offset)", [0] + FuzzMessage.body(of: [Seeds.dict($0.element)])) }
        case .keyfile:
            let policy = "[Providers]\nDisabled=org.example.A;org.example.B;\nOrder=org.example.C;\n\n[Roles]\ntranslate=org.example.T\n"
            return [("seed-policy", Array(policy.utf8))]
        case .undo:
            return Seeds.journals
        case .json:
            return [("seed-minimal", Array(#"[{"id": "copy", "title": "Copy", "shortcut": "<Control>c"}]"#.utf8))]
        }
    }
}

private enum Seeds {
    static func dict(_ entries: [String: DBusValue]) -> DBusValue {
        .array("{sv}", entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    static let elements: DBusValue = Wire.encode([
        MenuElement(id: "edit", kind: .menu, title: "Edit"),
        MenuElement(id: "copy", parent: "edit", title: "Copy", icon: "edit-copy", shortcut: "<Control>c"),
        MenuElement(id: "bold", parent: "edit", title: "Bold", state: .on),
    ])

    /// A journal of operations, one with a snapshot, and each cut short
    /// (torn) and with a byte flipped in its middle (damaged).
    static var journals: [(name: String, bytes: [UInt8])] {
        guard let key = try? UndoDocumentKey(appId: "org.example.Editor", documentId: "doc") else { return [] }
        var operations: [UInt8] = []
        let records: [UndoRecord] = [
            .header(key), .touched(1_700_000_000),
            .operation(.register(actionName: "Typing", undo: [1, 2], redo: [3], mergeKey: "t")),
            .operation(.beginGroup(actionName: "Paste")),
            .operation(.register(actionName: "Paste", undo: [4], redo: [5, 6], mergeKey: "")),
            .operation(.endGroup), .operation(.undo), .operation(.redo), .operation(.markClean),
            .operation(.setLimit(levels: 10)), .operation(.undo),
        ]
        records.forEach { $0.encode(into: &operations) }
        var stack = UndoStack()
        _ = try? stack.register(actionName: "One", undo: [1], redo: [2])
        _ = try? stack.register(actionName: "Two", undo: [3], redo: [4])
        _ = try? stack.undo()
        var snapshot: [UInt8] = []
        let document = UndoDocument(key: key, stack: stack, lastTouched: 5, journaledTouch: 5,
                                    journal: UndoJournal(directory: "/nonexistent", fileName: "unused.undo", size: 0))
        UndoJournal.snapshotRecords(of: document) { $0.encode(into: &snapshot) }
        UndoRecord.operation(.register(actionName: "Three", undo: [5], redo: [6], mergeKey: "")).encode(into: &snapshot)
        var seeds: [(String, [UInt8])] = []
        for (name, bytes) in [("operations", operations), ("snapshot", snapshot)] {
            var flipped = bytes
            flipped[bytes.count / 2] ^= 0x10
            seeds += [("seed-\(name)", bytes), ("seed-\(name)-torn", Array(bytes.dropLast(3))),
                      ("seed-\(name)-flipped", flipped)]
        }
        return seeds
    }
}
#endif
