import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

/// A finding as the composition tests compare it: counts in the message do
/// not make it another one.
struct FindingKey: Hashable, CustomStringConvertible {
    let severity: LintFinding.Severity
    let id: String
    let message: String
    init(_ finding: LintFinding) {
        severity = finding.severity
        id = finding.elementId
        message = String(finding.message.filter { !$0.isNumber })
    }
    var description: String { "\(severity) \(id): \(message)" }
}

/// Composition never adds a Lint finding the app's own items did not have:
/// every menu of a corpus, in every context, through both compositions.
final class CompositionLintTests: XCTestCase {
    private static let contexts: [(String, ContextInfo, Selection)] = [
        ("text with a range", Fixtures.richField,
         Selection(kind: .range, length: 4, text: "word", pasteboardTypes: ["text/plain", "text/html"])),
        ("text with a caret", Fixtures.textField, Selection(kind: .caret, pasteboardTypes: ["text/plain"])),
        ("read-only text", ContextInfo(kind: .text, hasContent: true, document: "doc"), Selection(kind: .range, length: 3)),
        ("image", Fixtures.photo, Selection()),
        ("file", ContextInfo(kind: .file), Selection()),
        ("url", ContextInfo(kind: .url), Selection()),
        ("item with content", ContextInfo(kind: .item, contentTypes: ["text/plain"]), Selection()),
    ]

    private static let providerSets: [[ProviderInfo]] = [
        [],
        Fixtures.allRoles + [Fixtures.upper],
        [ProviderInfo(id: "org.example.Any", title: "Send to Phone", icon: "phone", contentTypes: ["*/*"])],
    ]

    private static let undoStates: [UndoSummary?] = [nil, UndoSummary(canUndo: true, canRedo: true, undoActionName: "Typing")]

    /// Hand-written menus, the seeds' among them, and menus built from
    /// every sequence of up to three top-level groups.
    static var corpus: [(String, [MenuElement])] {
        var menus: [(String, [MenuElement])] = [
            ("seed 000", [Fixtures.action("save", title: "Save"), Fixtures.submenu("edit", title: "Edit…"),
                          Fixtures.action("rotate", parent: "edit", title: "Rotate"),
                          Fixtures.action("delete", parent: "edit", title: "Delete")]),
            ("seed 000, destructive", [Fixtures.action("save", title: "Save"), Fixtures.submenu("edit", title: "Edit…"),
                                       Fixtures.action("rotate", parent: "edit", title: "Rotate"),
                                       Fixtures.action("delete", parent: "edit", title: "Delete", attributes: [.destructive])]),
            ("seed 003", [Fixtures.action("share", title: "Share"), Fixtures.submenu("edit", title: "Edit.."),
                          Fixtures.action("copy", parent: "edit", title: "Copy"),
                          Fixtures.action("delete", parent: "edit", title: "Delete", attributes: [.destructive])]),
            ("an app Copy without a command", [Fixtures.action("mycopy", title: "Copy"), Fixtures.action("rename", title: "Rename")]),
            ("app items titled Copy twice", [Fixtures.action("mycopy", title: "Copy"), Fixtures.action("copy2", title: "Copy")]),
            ("an app item performing copy", [MenuElement(id: "c", title: "Copy Image", command: .copy)]),
            ("a trailing destructive item", [Fixtures.action("rename", title: "Rename"),
                                             Fixtures.action("delete", title: "Delete", attributes: [.destructive])]),
            ("icons everywhere", [Fixtures.action("rename", title: "Rename", icon: "edit-rename"),
                                  Fixtures.action("delete", title: "Move to Trash", icon: "user-trash", attributes: [.destructive])]),
            ("a single-selection last section", [Fixtures.section("a"), Fixtures.action("a1", parent: "a", title: "Do A"),
                                                 Fixtures.section("b"), Fixtures.action("b1", parent: "b", title: "Do B"),
                                                 MenuElement(id: "c", kind: .menu, options: [.inline, .singleSelection]),
                                                 Fixtures.action("c1", parent: "c", title: "Small", state: .on),
                                                 Fixtures.action("c2", parent: "c", title: "Large")]),
            ("fifteen items", (1...15).map { Fixtures.action("i\($0)", title: "Do \($0)") }),
            ("a deferred element", [Fixtures.action("a", title: "Rename"), MenuElement(id: "later", kind: .deferred)]),
        ]
        // Groups: r = a run of two items, s = a section of two, d = a destructive item, D = a destructive section.
        let pieces: [Character] = ["r", "s", "d", "D"]
        var shapes: [[Character]] = [[]]
        for _ in 1...3 { shapes = shapes + shapes.filter { $0.count == shapes.last!.count }.flatMap { s in pieces.map { s + [$0] } } }
        for shape in Set(shapes.map { String($0) }).sorted() where !shape.isEmpty {
            for icons in [false, true] {
                menus.append(("shape \(shape)\(icons ? " with icons" : "")", build(shape, icons: icons)))
            }
        }
        return menus
    }

    private static func build(_ shape: String, icons: Bool) -> [MenuElement] {
        var menu: [MenuElement] = []
        for (n, piece) in shape.enumerated() {
            let icon = icons ? "document-properties" : nil
            switch piece {
            case "r":
                menu += [Fixtures.action("r\(n)a", title: "Run \(n) A", icon: icon),
                         Fixtures.action("r\(n)b", title: "Run \(n) B", icon: icon)]
            case "s":
                menu += [Fixtures.section("s\(n)"),
                         Fixtures.action("s\(n)a", parent: "s\(n)", title: "Section \(n) A", icon: icon),
                         Fixtures.action("s\(n)b", parent: "s\(n)", title: "Section \(n) B", icon: icon)]
            case "d":
                menu.append(Fixtures.action("d\(n)", title: "Remove \(n)", icon: icon, attributes: [.destructive]))
            default:
                menu += [MenuElement(id: "D\(n)", kind: .menu, options: [.inline, .destructive]),
                         Fixtures.action("D\(n)a", parent: "D\(n)", title: "Erase \(n)", icon: icon)]
            }
        }
        return menu
    }

    static let sectionsMessage = Lint.check(kind: .context, elements: (1...4).flatMap {
        [Fixtures.section("s\($0)"), Fixtures.action("a\($0)", parent: "s\($0)", title: "Do \($0)")]
    }).first { $0.elementId == "" }?.message ?? "sections"

    func testCompositionAddsNoFindingTheAppItemsDidNotHave() {
        var checked = 0
        for (name, items) in Self.corpus {
            for (contextName, context, selection) in Self.contexts {
                for providers in Self.providerSets {
                    var before = Set(Lint.check(kind: .context, elements: items).map(FindingKey.init))
                    // Destructive items that are not last get moved to the end,
                    // which may split a run of the app's items in two: the one
                    // finding that move may trade for is the section count.
                    if before.contains(where: { $0.message.contains("not last") }) {
                        before.insert(FindingKey(LintFinding(severity: .warning, elementId: "", message: Self.sectionsMessage)))
                    }
                    let contextMenu = ContextMenu.compose(context: context, items: items, providers: providers,
                                                          selection: selection)
                    let added = Set(Lint.check(kind: .context, elements: contextMenu, composed: true).map(FindingKey.init)).subtracting(before)
                    XCTAssertEqual(added, [], "context menu of \(name) in \(contextName): \(contextMenu.ids)")
                    XCTAssertNoThrow(try ElementValidation.validate(contextMenu, allowReserved: true), name)

                    let editBefore = Set(Lint.check(kind: .edit, elements: items).map(FindingKey.init)).union(before)
                    for undo in Self.undoStates {
                        let editMenu = EditMenu.compose(context: context, selection: selection, undo: undo,
                                                        providers: providers, appItems: items)
                        let editAdded = Set(Lint.check(kind: .edit, elements: editMenu, composed: true).map(FindingKey.init)).subtracting(editBefore)
                        XCTAssertEqual(editAdded, [], "edit menu of \(name) in \(contextName): \(editMenu.ids)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    func testTheIssuesMenusNowLintClean() {
        // The suggestions came after 'Delete' and made a fourth section.
        let items = [Fixtures.section("a"), Fixtures.action("a1", parent: "a", title: "Rename"),
                     Fixtures.section("b"), Fixtures.action("b1", parent: "b", title: "Duplicate"),
                     Fixtures.action("delete", title: "Delete", attributes: [.destructive])]
        XCTAssertEqual(Lint.check(kind: .context, elements: items), [])
        let menu = ContextMenu.compose(context: Fixtures.photo, items: items, providers: [Fixtures.share])
        XCTAssertEqual(Lint.check(kind: .context, elements: menu, composed: true), [], "\(menu.ids)")
        XCTAssertEqual(menu.last?.id, "delete", "destructive stays last")
        XCTAssertTrue(menu.contains { $0.id == "menubus:copy" }, "Copy is still offered: \(menu.ids)")
    }

    func testSystemItemsAreNotRepeatedByCommandOrTitle() {
        let image = ContextMenu.compose(context: Fixtures.photo, items: [Fixtures.action("mycopy", title: "Copy")],
                                        providers: [])
        XCTAssertEqual(image.filter { $0.title == "Copy" }.map(\.id), ["mycopy"])
        let edit = EditMenu.compose(context: Fixtures.textField, selection: Fixtures.range, undo: nil, providers: [],
                                    appItems: [Fixtures.action("mycopy", title: "Copy"), Fixtures.action("paste2", title: "Paste…")])
        XCTAssertFalse(edit.contains { $0.id == "menubus:copy" }, "\(edit.ids)")
        XCTAssertTrue(edit.contains { $0.id == "menubus:cut" })
        let byCommand = EditMenu.compose(context: Fixtures.textField, selection: Fixtures.range, undo: nil, providers: [],
                                         appItems: [MenuElement(id: "c", title: "Copy Plain", command: .copy)])
        XCTAssertFalse(byCommand.contains { $0.id == "menubus:copy" })
        let undo = EditMenu.compose(context: Fixtures.textField, selection: Fixtures.range,
                                    undo: UndoSummary(canUndo: true, undoActionName: "Typing"), providers: [],
                                    appItems: [Fixtures.action("mine", title: "Undo Typing")])
        XCTAssertFalse(undo.contains { $0.id == "menubus:undo" }, "\(undo.ids)")
        let provided = ContextMenu.compose(context: Fixtures.photo, items: [Fixtures.action("up", title: "Make Upper Case")],
                                           providers: [ProviderInfo(id: "org.example.Up", title: "Make Upper Case",
                                                                    contentTypes: ["image/*"])])
        XCTAssertEqual(provided.filter { $0.title == "Make Upper Case" }.map(\.id), ["up"])
    }

    func testAReadOnlyContextWithADocumentOffersNoUndo() {
        let readOnly = ContextInfo(kind: .text, hasContent: true, document: "notes")
        let undo = UndoSummary(canUndo: true, canRedo: true, undoActionName: "Typing")
        let menu = EditMenu.compose(context: readOnly, selection: Fixtures.range, undo: undo, providers: [], appItems: [])
        XCTAssertFalse(menu.contains { $0.command == .undo || $0.command == .redo }, "\(menu.ids)")
        let editable = EditMenu.compose(context: Fixtures.textField, selection: Fixtures.range, undo: undo, providers: [],
                                        appItems: [])
        XCTAssertEqual(editable.element("menubus:undo")?.title, "Undo Typing")
    }
}
