import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Apps and presenters on a private bus with the real menubusd, through the Swift client library.
final class MenuServiceTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon()
    }

    private let textField = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)

    private func commands(_ menu: Menu) -> [String] {
        menu.elements.compactMap { $0.command?.rawValue }
    }

    // MARK: Edit menu rows through GetEditMenu

    func testEditMenuRowsFollowTheSelection() throws {
        let app = try app()
        let rich = ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true, hasContent: true, richText: true)
        let readOnly = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: false, hasContent: true)
        let empty = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: false)
        let rows: [(String, ContextInfo, Selection, [String])] = [
            ("caret, nothing to paste", textField, Selection(kind: .caret), ["select", "select-all"]),
            ("caret, text on the clipboard", textField, Selection(kind: .caret, pasteboardTypes: ["text/plain"]),
             ["paste", "select", "select-all"]),
            ("a range", textField, Selection(kind: .range, length: 4),
             ["cut", "copy", "delete", "select-all"]),
            ("everything selected", textField, Selection(kind: .all, length: 9),
             ["cut", "copy", "delete"]),
            ("empty range", textField, Selection(kind: .range, length: 0), ["select-all"]),
            ("read-only range", readOnly, Selection(kind: .range, length: 3, pasteboardTypes: ["text/plain"]),
             ["copy", "select-all"]),
            ("empty field", empty, Selection(kind: .caret, pasteboardTypes: ["image/png"]), []),
            ("rich text with styles", rich,
             Selection(kind: .range, length: 2, attributes: [.bold], pasteboardTypes: ["text/html"]),
             ["cut", "copy", "paste", "paste-and-match-style", "delete", "select-all", "bold", "italic", "underline"]),
        ]
        for (index, (label, context, selection, expected)) in rows.enumerated() {
            let id = "field\(index)"
            try app.publishContext(id, context)
            try app.updateSelection(id, selection)
            let menu = try app.editMenu(contextId: id)
            XCTAssertEqual(commands(menu), expected, label)
        }
    }

    func testFormatStateComesFromTheSelectionAttributes() throws {
        let app = try app()
        try app.publishContext("doc", ContextInfo(kind: .text, editable: true, hasContent: true, richText: true))
        try app.updateSelection("doc", Selection(kind: .range, length: 5, attributes: [.bold, .underline]))
        let menu = try app.editMenu(contextId: "doc")
        XCTAssertEqual(menu.element("menubus:bold")?.state, .on)
        XCTAssertEqual(menu.element("menubus:italic")?.state, .off)
        XCTAssertEqual(menu.element("menubus:underline")?.state, .on)
    }

    func testCommandsTheAppDoesNotSupportNeverShow() throws {
        let app = try app()
        var context = textField
        context.supportedCommands = [.copy]
        try app.publishContext("f", context)
        try app.updateSelection("f", Selection(kind: .range, length: 3, pasteboardTypes: ["text/plain"]))
        XCTAssertEqual(commands(try app.editMenu(contextId: "f")), ["copy"])
    }

    func testAppItemsComeAfterEverySystemItem() throws {
        let app = try app()
        try app.publishContext("f", textField, items: [MenuElement(id: "insert-date", title: "Insert Date")])
        try app.updateSelection("f", Selection(kind: .range, length: 3))
        let ids = try app.editMenu(contextId: "f").elements.map(\.id)
        let own = try XCTUnwrap(ids.firstIndex(of: "insert-date"))
        let lastSystem = try XCTUnwrap(ids.lastIndex { $0.hasPrefix("menubus:") && !$0.hasPrefix("menubus:section") })
        XCTAssertGreaterThan(own, lastSystem)
    }

    // MARK: Context menus and presentations

    func testContextMenuKeepsAppOrderAndDropsHiddenItems() throws {
        let app = try app()
        let items = [
            MenuElement(id: "delete", title: "Delete", attributes: [.destructive]),
            MenuElement(id: "rename", title: "Rename"),
            MenuElement(id: "secret", title: "Secret", attributes: [.hidden]),
            MenuElement(id: "share", title: "Duplicate"),
        ]
        try app.publishContext("row", ContextInfo(kind: .file), items: items)
        let ids = try app.contextMenu(contextId: "row").elements.map(\.id).filter { !$0.hasPrefix("menubus:") }
        XCTAssertEqual(ids, ["rename", "share", "delete"], "hidden gone, destructive last")
    }

    func testPresenterChoosesAnAppItemAndTheAppHearsIt() throws {
        let app = try app()
        let presenter = try client()
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "rename", title: "Rename")])
        var actions: [ActionInvocation] = []
        app.onAction = { actions.append($0) }
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "row", kind: .context)
        XCTAssertTrue(menu.path.rawValue.hasPrefix("/org/menubus/MenuBus1/menu/"))
        XCTAssertNotNil(try presenter.layout(of: menu).element("rename"))
        try presenter.activate(menu, itemId: "rename", platformData: ["x": .int32(10)])
        XCTAssertTrue(app.run(until: { !actions.isEmpty }, timeout: 5))
        XCTAssertEqual(actions.first?.contextId, "row")
        XCTAssertEqual(actions.first?.itemId, "rename")
        XCTAssertEqual(actions.first?.platformData["x"], .int32(10))
        // Activation closes the menu.
        XCTAssertTrue(eventually { (try? presenter.layout(of: menu)) == nil })
    }

    func testChoosingCopySendsPerformCommandToTheOwner() throws {
        let app = try app()
        try app.publishContext("f", textField)
        try app.updateSelection("f", Selection(kind: .range, length: 3))
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        // An app may present and choose from its own menu with blocking calls.
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:copy")
        XCTAssertTrue(app.run(until: { !commands.isEmpty }, timeout: 5))
        XCTAssertEqual(commands.first?.command, .copy)
        XCTAssertEqual(commands.first?.contextId, "f")
    }

    func testOpenMenusUpdateLiveAndOnlyOnRealChanges() throws {
        let app = try app()
        let presenter = try client()
        try app.publishContext("f", textField)
        try app.updateSelection("f", Selection(kind: .caret))
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: app.uniqueName, contextId: "f", kind: .edit)
        let first = try presenter.layout(of: menu)
        XCTAssertNil(first.element("menubus:copy"))
        try app.updateSelection("f", Selection(kind: .caret))  // same menu: no signal
        try app.updateSelection("f", Selection(kind: .range, length: 2))
        XCTAssertTrue(presenter.run(until: { !layouts.isEmpty }, timeout: 5))
        presenter.run(until: { false }, timeout: 0.2)
        XCTAssertEqual(layouts.count, 1, "one LayoutChanged, for the change that mattered")
        XCTAssertNotNil(layouts.last?.element("menubus:copy"))
        XCTAssertGreaterThan(layouts.last?.revision ?? 0, first.revision)
        try app.updateItems("f", [MenuElement(id: "mine", title: "Mine")])
        XCTAssertTrue(presenter.run(until: { layouts.count == 2 }, timeout: 5))
        XCTAssertNotNil(layouts.last?.element("mine"))
        XCTAssertEqual(try presenter.layout(of: menu), layouts.last)
    }

    /// An `UpdateItems` takes the elements whose bytes it read before
    /// without reading them again, but only while the context holds what
    /// it read then: items replaced another way are never taken back.
    func testItemsReplacedAnotherWayAreNeverTakenFromAnEarlierUpdate() throws {
        let app = try app()
        let first = [MenuElement(id: "x", title: "One"), MenuElement(id: "y", title: "Two")]
        let other = [MenuElement(id: "x", title: "Eins"), MenuElement(id: "y", title: "Zwei")]
        try app.publishContext("c", ContextInfo(kind: .item), items: first)
        _ = try app.updateItems("c", first)
        _ = try app.updateItems("c", first)
        XCTAssertEqual(try app.publishedContext(contextId: "c").items, first)
        try app.publishContext("c", ContextInfo(kind: .item), items: other)
        _ = try app.updateItems("c", first)
        XCTAssertEqual(try app.publishedContext(contextId: "c").items, first, "after PublishContext")
    }

    func testDismissClosesTheMenuAndOnlyThePresenterOrOwnerMayChoose() throws {
        let app = try app()
        let presenter = try client()
        let stranger = try client()
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "rename", title: "Rename")])
        var closed: [PresentedMenu] = []
        try presenter.observeMenus({ _, _ in }, closed: { closed.append($0) })
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "row", kind: .context)
        assertBusError(BusError.Domain.accessDenied.errorName) { try stranger.activate(menu, itemId: "rename") }
        assertBusError(BusError.Domain.accessDenied.errorName) { try stranger.dismiss(menu) }
        assertBusError(BusError.Domain.noSuchItem.errorName) { try presenter.activate(menu, itemId: "nope") }
        assertBusError(BusError.Standard.invalidArgs) { try app.activate(menu, itemId: "menubus:section:suggestions") }
        try presenter.dismiss(menu)
        XCTAssertTrue(presenter.run(until: { closed == [menu] }, timeout: 5))
        assertBusError(BusError.Standard.unknownObject) { _ = try presenter.layout(of: menu) }
        assertBusError(BusError.Standard.unknownObject) { try presenter.activate(menu, itemId: "rename") }
    }

    // MARK: Ownership and lifetimes

    func testAnotherAppCannotChangeMyContexts() throws {
        let mine = try app("org.example.Mine")
        let other = try app("org.example.Other")
        try mine.publishContext("f", textField, items: [MenuElement(id: "a", title: "Alpha")])
        assertBusError(BusError.Domain.noSuchContext.errorName) { try other.updateItems("f", []) }
        assertBusError(BusError.Domain.noSuchContext.errorName) { try other.updateSelection("f", Selection(kind: .all, length: 1)) }
        assertBusError(BusError.Domain.noSuchContext.errorName) { try other.removeContext("f") }
        XCTAssertNotNil(try other.contextMenu(owner: "org.example.Mine", contextId: "f").element("a"), "reading is fine")
        XCTAssertNotNil(try mine.contextMenu(contextId: "f").element("a"), "nothing changed")
    }

    func testUnregisteredCallersAreTold() throws {
        let stranger = try client()
        assertBusError(BusError.Domain.notRegistered.errorName) { try stranger.publishContext("f", self.textField) }
        assertBusError(BusError.Domain.notRegistered.errorName) { _ = try stranger.editMenu(owner: "org.example.Nobody", contextId: "f") }
    }

    func testAnAppLeavingTheBusLosesItsContextsAndMenusAtOnce() throws {
        let leaver = try app("org.example.Leaver")
        let presenter = try client()
        try leaver.publishContext("a", textField)
        try leaver.publishContext("b", textField)
        var closed = 0
        try presenter.observeMenus({ _, _ in }, closed: { _ in closed += 1 })
        _ = try presenter.present(owner: "org.example.Leaver", contextId: "a", kind: .edit)
        XCTAssertEqual(try presenter.listContexts().filter { $0.appId == "org.example.Leaver" }.count, 2)
        XCTAssertEqual(try stat(presenter, "presentations"), 1)
        leaver.close()
        XCTAssertTrue(presenter.run(until: { closed == 1 }, timeout: 5), "its menu closes")
        XCTAssertTrue(eventually { (try? presenter.listContexts().contains { $0.appId == "org.example.Leaver" }) == false })
        XCTAssertEqual(try stat(presenter, "contexts"), 0)
        XCTAssertEqual(try stat(presenter, "apps"), 0)
        XCTAssertEqual(try stat(presenter, "presentations"), 0)
    }

    func testAPresenterLeavingClosesItsMenus() throws {
        let app = try app()
        let presenter = try client()
        try app.publishContext("f", textField)
        _ = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        XCTAssertEqual(try stat(app, "presentations"), 1)
        presenter.close()
        XCTAssertTrue(eventually { (try? self.stat(app, "presentations")) == 0 })
        XCTAssertEqual(try stat(app, "contexts"), 1, "the app's context stays")
    }

    func testOwnerByAppIdMeansTheMostRecentRegistrationWithThatContext() throws {
        let first = try app("org.example.Twin")
        let second = try app("org.example.Twin")
        try first.publishContext("f", textField, items: [MenuElement(id: "one", title: "One")])
        try second.publishContext("f", textField, items: [MenuElement(id: "two", title: "Two")])
        try first.publishContext("only-first", textField, items: [MenuElement(id: "one", title: "One")])
        let presenter = try client()
        XCTAssertNotNil(try presenter.contextMenu(owner: "org.example.Twin", contextId: "f").element("two"))
        XCTAssertNotNil(try presenter.contextMenu(owner: "org.example.Twin", contextId: "only-first").element("one"))
        XCTAssertNotNil(try presenter.contextMenu(owner: first.uniqueName, contextId: "f").element("one"))
    }

    func testStatsCountForReal() throws {
        let app = try app()
        try app.publishContext("a", textField)
        try app.publishContext("b", textField)
        try app.publishContext("b", textField)  // replaced, not added
        XCTAssertEqual(try stat(app, "apps"), 1)
        XCTAssertEqual(try stat(app, "contexts"), 2)
        try app.removeContext("a")
        XCTAssertEqual(try stat(app, "contexts"), 1)
    }

    // MARK: Bad input

    func testBadInputIsRefusedNamingTheFieldAndKeepsEarlierState() throws {
        let app = try app()
        let good = [MenuElement(id: "keep", title: "Keep")]
        let revision = try app.publishContext("f", textField, items: good)
        let raw = try connect()
        _ = try callDaemon(raw, "Register", [.string("org.example.Raw"), .objectPath("/c"), .array("{sv}", [])])
        _ = try callDaemon(raw, "PublishContext", [.string("f"), Wire.encode(textField), Wire.encode(good)])
        func element(_ id: String, _ parent: String = "", _ props: [(String, DBusValue)]) -> DBusValue {
            .structure([.string(id), .string(parent), .array("{sv}", props.map { .dictEntry(.string($0.0), .variant($0.1)) })])
        }
        let cases: [(String, String, [DBusValue], String)] = [
            ("wrong type of title", BusError.Standard.invalidArgs,
             [.string("f"), .array("(ssa{sv})", [element("a", "", [("title", .uint32(3))])])], "items[0].properties.title"),
            ("unknown element type", BusError.Standard.invalidArgs,
             [.string("f"), .array("(ssa{sv})", [element("a", "", [("type", .string("separator")), ("title", .string("A"))])])], "separator"),
            ("empty id", BusError.Standard.invalidArgs,
             [.string("f"), .array("(ssa{sv})", [element("", "", [("title", .string("A"))])])], "items[0].id"),
            ("duplicate id", BusError.Standard.invalidArgs,
             [.string("f"), .array("(ssa{sv})", [element("a", "", [("title", .string("A"))]), element("a", "", [("title", .string("B"))])])], "items[1].id"),
            ("parent that comes later", BusError.Standard.invalidArgs,
             [.string("f"), .array("(ssa{sv})", [element("a", "m", [("title", .string("A"))]),
                                                  element("m", "", [("type", .string("menu")), ("title", .string("M"))])])], "items[0].parent"),
            ("over-long title", BusError.Domain.limitExceeded.errorName,
             [.string("f"), .array("(ssa{sv})", [element("a", "", [("title", .string(String(repeating: "x", count: 4097)))])])], "items[0].properties.title"),
            ("too many elements", BusError.Domain.limitExceeded.errorName,
             [.string("f"), .array("(ssa{sv})", (0...1000).map { element("e\($0)", "", [("title", .string("E"))]) })], "1000"),
            ("wrong signature", BusError.Standard.invalidArgs, [.string("f"), .uint32(1)], "'sa(ssa{sv})'"),
        ]
        for (label, errorName, arguments, mention) in cases {
            let error = assertBusError(errorName) { _ = try callDaemon(raw, "UpdateItems", arguments) }
            XCTAssertTrue(error?.message.contains(mention) ?? false, "\(label): \(error?.message ?? "")")
        }
        assertBusError(BusError.Standard.invalidArgs) { _ = try callDaemon(raw, "UpdateSelection", [.string("f"), .array("{sv}", [.dictEntry(.string("kind"), .variant(.string("sideways")))])]) }
        assertBusError(BusError.Standard.invalidArgs) { _ = try callDaemon(raw, "Register", [.string("not reverse dns"), .objectPath("/c"), .array("{sv}", [])]) }
        assertBusError(BusError.Standard.invalidArgs) { _ = try callDaemon(raw, "PresentMenu", [.string(""), .string("f"), .string("sideways"), .array("{sv}", [])]) }
        assertBusError(BusError.Standard.invalidArgs) { _ = try callDaemon(raw, "PublishContext", [.string("bad id!"), Wire.encode(textField), Wire.encode(good)]) }
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try app.contextMenu(contextId: "f").revision, revision, "the app's context is untouched")
        let rawMenu = try callDaemon(raw, "GetContextMenu", [.string(""), .string("f"), .array("{sv}", [])])
        XCTAssertEqual(try Wire.decodeElements(rawMenu[1], allowReserved: true).filter { $0.id == "keep" }.count, 1, "earlier items kept")
    }

    func testContextLimitPerApp() throws {
        let app = try app()
        for index in 0..<Limits.maxContextsPerApp {
            try app.publishContext("c\(index)", textField)
        }
        assertBusError(BusError.Domain.limitExceeded.errorName) { try app.publishContext("one-more", self.textField) }
        try app.publishContext("c0", textField)  // replacing is still fine
    }

    func testLintReportsFindingsWithoutStoringAnything() throws {
        let app = try client()
        let findings = try app.lint(kind: .context, items: [
            MenuElement(id: "open", title: "Open"),
            MenuElement(id: "copy", title: "Copy", shortcut: "<Control>c"),
        ])
        XCTAssertTrue(findings.contains { $0.elementId == "open" }, "\(findings)")
        XCTAssertTrue(findings.contains { $0.elementId == "copy" }, "\(findings)")
        XCTAssertEqual(try app.lint(kind: .context, items: [MenuElement(id: "rename", title: "Rename")]), [])
        XCTAssertEqual(try stat(app, "contexts"), 0)
    }

    private func stat(_ client: MenuBusClient, _ name: String) throws -> UInt32 {
        let value = try client.stats().first { $0.name == name }?.value
        guard case .uint32(let count) = value else { throw TestFailure("no counter \(name)") }
        return count
    }
}
