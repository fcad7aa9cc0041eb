import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class CommandOmissionTests: XCTestCase {
    private func system(_ command: StandardCommand, in parent: String) -> MenuElement {
        .system(command, parent: parent, title: command.title)
    }

    /// What GTK 4 keeps in a text widget's own menu.
    private let gtk4: Set<StandardCommand> = [.cut, .copy, .paste, .delete, .selectAll]

    func testOmittedCommandsLeaveTheMenuAndEmptiedMenusGoWithThem() {
        let s1 = ElementID.section(1), s2 = ElementID.section(2), s3 = ElementID.section(3), s4 = ElementID.section(4)
        let editing = [Fixtures.section(s2), system(.cut, in: s2), system(.copy, in: s2), system(.paste, in: s2),
                       system(.delete, in: s2), system(.selectAll, in: s2)]
        let format = [Fixtures.section(s3), MenuElement(id: ElementID.format, parent: s3, kind: .menu, title: "Format"),
                      system(.bold, in: ElementID.format), system(.italic, in: ElementID.format),
                      system(.translate, in: s3)]
        let rows: [(name: String, omit: Set<StandardCommand>, menu: [MenuElement], shown: [String])] = [
            ("nothing omitted keeps every element", [], editing,
             [s2, "menubus:cut", "menubus:copy", "menubus:paste", "menubus:delete", "menubus:select-all"]),
            ("an omitted command's item goes", [.copy], editing,
             [s2, "menubus:cut", "menubus:paste", "menubus:delete", "menubus:select-all"]),
            ("a section left empty goes", gtk4, [Fixtures.section(s1), system(.undo, in: s1)] + editing,
             [s1, "menubus:undo"]),
            ("a section keeps what is not omitted", gtk4, editing + [system(.select, in: s2)], [s2, "menubus:select"]),
            ("a submenu left empty goes, its section stays for the rest", [.bold, .italic], format,
             [s3, "menubus:translate"]),
            ("emptied menus go up to the top", [.bold, .italic, .translate], format, []),
            ("an app's item naming the command goes too", [.copy],
             [Fixtures.section(s4), MenuElement(id: "my-copy", parent: s4, title: "Copy Link", command: .copy),
              Fixtures.action("rename", parent: s4)],
             [s4, "rename"]),
            ("an app's menu naming the command goes with its children", [.share],
             [MenuElement(id: "share", kind: .menu, title: "Share", command: .share), Fixtures.action("mail", parent: "share"),
              Fixtures.action("open")],
             ["open"]),
            ("a menu that was empty before stays", [.copy],
             [Fixtures.submenu("empty"), Fixtures.section("s"), system(.copy, in: "s"), Fixtures.action("open")],
             ["empty", "open"]),
            ("a loading stand-in keeps its section", [.copy],
             [Fixtures.section("s"), system(.copy, in: "s"),
              MenuElement(id: "later", parent: "s", title: DeferredElements.loadingTitle, attributes: [.disabled])],
             ["s", "later"]),
            ("a command not in the menu changes nothing", [.underline], editing,
             [s2, "menubus:cut", "menubus:copy", "menubus:paste", "menubus:delete", "menubus:select-all"]),
        ]
        for row in rows {
            XCTAssertEqual(CommandOmission.apply(row.omit, to: row.menu).ids, row.shown, row.name)
        }
    }

    func testKeptElementsAreUnchangedAndInOrder() {
        let menu = [Fixtures.action("a"), Fixtures.section("s"), system(.copy, in: "s"),
                    Fixtures.action("b", parent: "s", attributes: [.destructive]), Fixtures.action("c")]
        XCTAssertEqual(CommandOmission.apply([.copy], to: menu), [menu[0], menu[1], menu[3], menu[4]])
    }

    /// The edit menu of a GTK 4 text field: GTK draws the editing commands,
    /// MenuBus adds what GTK does not have.
    func testAGtk4TextFieldKeepsUndoFormatAndTheAppsItems() {
        let menu = EditMenu.compose(context: Fixtures.richField, selection: Fixtures.range,
                                    undo: UndoSummary(canUndo: true), providers: [Fixtures.translate],
                                    appItems: [Fixtures.action("insert-date")])
        XCTAssertTrue(menu.shownItems.contains("copy"))
        let shown = CommandOmission.apply(gtk4, to: menu)
        XCTAssertEqual(shown.shownItems, ["undo", "format", "bold", "italic", "underline", "translate", "insert-date"])
        XCTAssertFalse(shown.contains { $0.command.map(gtk4.contains) == true })
    }
}
