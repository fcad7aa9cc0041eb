import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class StandardCommandTests: XCTestCase {
    func testEveryCommandHasItsFixedTitleIconAndGroup() {
        let table: [(StandardCommand, String, String?, Int)] = [
            (.undo, "Undo", "edit-undo", 1),
            (.redo, "Redo", "edit-redo", 1),
            (.cut, "Cut", "edit-cut", 2),
            (.copy, "Copy", "edit-copy", 2),
            (.paste, "Paste", "edit-paste", 2),
            (.pasteAndMatchStyle, "Paste and Match Style", nil, 2),
            (.delete, "Delete", "edit-delete", 2),
            (.select, "Select", nil, 2),
            (.selectAll, "Select All", "edit-select-all", 2),
            (.bold, "Bold", "format-text-bold", 3),
            (.italic, "Italic", "format-text-italic", 3),
            (.underline, "Underline", "format-text-underline", 3),
            (.lookup, "Look Up", nil, 3),
            (.translate, "Translate", nil, 3),
            (.searchWeb, "Search Web", "system-search", 3),
            (.share, "Share…", nil, 3),
            (.replaceSelection, "Replace Selection", nil, 3),
        ]
        XCTAssertEqual(table.map(\.0), StandardCommand.allCases)
        for (command, title, icon, group) in table {
            XCTAssertEqual(command.title, title, "\(command)")
            XCTAssertEqual(command.icon, icon, "\(command)")
            XCTAssertEqual(command.group, group, "\(command)")
        }
    }

    func testRawValuesAreTheAPINames() {
        XCTAssertEqual(StandardCommand.allCases.map(\.rawValue), [
            "undo", "redo", "cut", "copy", "paste", "paste-and-match-style", "delete", "select", "select-all",
            "bold", "italic", "underline", "lookup", "translate", "search-web", "share", "replace-selection",
        ])
    }

    func testComposedIdsFollowTheScheme() {
        for command in StandardCommand.allCases {
            XCTAssertEqual(ElementID.command(command), "menubus:" + command.rawValue)
            XCTAssertEqual(ElementID.command(in: ElementID.command(command)), command)
        }
        for group in 1...5 {
            XCTAssertEqual(ElementID.section(group), "menubus:section:\(group)")
        }
        XCTAssertEqual(ElementID.provider("org.example.Upper"), "menubus:provider:org.example.Upper")
        XCTAssertEqual(ElementID.providerId(in: "menubus:provider:org.example.Upper"), "org.example.Upper")
        XCTAssertNil(ElementID.providerId(in: "menubus:copy"))
        XCTAssertNil(ElementID.command(in: "copy"))
    }

    func testRolesPerformTheirCommands() {
        XCTAssertEqual(ProviderRole.allCases.map(\.command), [.lookup, .translate, .searchWeb, .share])
        XCTAssertEqual(ProviderRole.allCases.map(\.rawValue), ["lookup", "translate", "search-web", "share"])
    }
}
