import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// A menu asked for again and again (menubusd reuses the marshalled reply
/// while the composed menu is equal, the client skips reading a reply whose
/// bytes it has read): every change still shows at once.
final class RepeatedMenuTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon()
    }

    private func commands(_ menu: Menu) -> [String] {
        menu.elements.compactMap { $0.command?.rawValue }
    }

    func testAskingAgainAnswersTheSameMenuAndEveryChangeShowsAtOnce() throws {
        let app = try app()
        let presenter = try client()
        let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
        try app.publishContext("field", field)
        let rows: [(String, Selection, [String])] = [
            ("caret", Selection(kind: .caret), ["select", "select-all"]),
            ("a range", Selection(kind: .range, length: 4), ["cut", "copy", "delete", "select-all"]),
            ("caret again", Selection(kind: .caret), ["select", "select-all"]),
            ("a range again", Selection(kind: .range, length: 4), ["cut", "copy", "delete", "select-all"]),
        ]
        var previous: Menu?
        for (label, selection, expected) in rows {
            try app.updateSelection("field", selection)
            let first = try presenter.editMenu(owner: "org.example.Editor", contextId: "field")
            XCTAssertEqual(commands(first), expected, label)
            if let previous { XCTAssertNotEqual(first, previous, label) }
            for _ in 0..<3 {
                XCTAssertEqual(try presenter.editMenu(owner: "org.example.Editor", contextId: "field"), first, label)
                XCTAssertEqual(try app.editMenu(contextId: "field"), first, label)
            }
            previous = first
        }
        // Kinds alternate on one context: each answers its own.
        let edit = try presenter.editMenu(owner: "org.example.Editor", contextId: "field")
        let context = try presenter.contextMenu(owner: "org.example.Editor", contextId: "field")
        XCTAssertNotEqual(edit, context)
        XCTAssertEqual(try presenter.editMenu(owner: "org.example.Editor", contextId: "field"), edit)
        XCTAssertEqual(try presenter.contextMenu(owner: "org.example.Editor", contextId: "field"), context)
        // New items: a new revision and the item, at once.
        try app.updateItems("field", [MenuElement(id: "wordcount", title: "Word Count")])
        let updated = try presenter.editMenu(owner: "org.example.Editor", contextId: "field")
        XCTAssertGreaterThan(updated.revision, edit.revision)
        XCTAssertNotNil(updated.element("wordcount"))
    }

    func testMoreMenusInTurnThanTheClientRemembersEachAnswerTheirOwn() throws {
        let app = try app()
        let presenter = try client()
        let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
        let count = MenuBusClient.maxRememberedMenus + 2
        for index in 0..<count {
            try app.publishContext("field\(index)", field, items: [MenuElement(id: "only\(index)", title: "Only \(index)")])
        }
        for round in 0..<3 {
            for index in 0..<count {
                let menu = try presenter.editMenu(owner: "org.example.Editor", contextId: "field\(index)")
                XCTAssertNotNil(menu.element("only\(index)"), "round \(round), field\(index)")
                XCTAssertEqual(menu.elements.filter { $0.id.hasPrefix("only") }.count, 1, "round \(round), field\(index)")
            }
        }
    }

    func testAnAppThatLeftAndCameBackIsComposedAfresh() throws {
        let presenter = try client()
        let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
        let app = try self.app()
        try app.publishContext("field", field, items: [MenuElement(id: "first", title: "First")])
        let before = try presenter.editMenu(owner: "org.example.Editor", contextId: "field")
        XCTAssertNotNil(before.element("first"))
        app.close()
        let probe = try client()
        XCTAssertTrue(eventually(timeout: 10) {
            (try? probe.editMenu(owner: "org.example.Editor", contextId: "field")) == nil
        }, "the context went with its app")
        let again = try self.app()
        try again.publishContext("field", field, items: [MenuElement(id: "second", title: "Second")])
        let after = try presenter.editMenu(owner: "org.example.Editor", contextId: "field")
        XCTAssertNil(after.element("first"))
        XCTAssertNotNil(after.element("second"))
        _ = daemon
    }
}
