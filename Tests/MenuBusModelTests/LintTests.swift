import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class LintTests: XCTestCase {
    private func findings(_ elements: [MenuElement], kind: MenuKind = .context) -> [LintFinding] {
        Lint.check(kind: kind, elements: elements)
    }

    private func assertFinding(_ elements: [MenuElement], kind: MenuKind = .context, _ severity: LintFinding.Severity,
                               on id: String, saying phrase: String, file: StaticString = #filePath, line: UInt = #line) {
        let found = findings(elements, kind: kind)
        XCTAssertTrue(found.contains { $0.severity == severity && $0.elementId == id && $0.message.contains(phrase) },
                      "expected a \(severity) on '\(id)' saying '\(phrase)', got \(found)", file: file, line: line)
    }

    private let cleanMenu = [
        MenuElement(id: "main", kind: .menu, options: [.inline]),
        MenuElement(id: "copy-link", parent: "main", title: "Copy Link", icon: "edit-copy"),
        MenuElement(id: "add", parent: "main", title: "Add to Photos", icon: "list-add"),
        MenuElement(id: "sort", parent: "main", kind: .menu, title: "Sort By", icon: "view-sort-ascending",
                    options: [.singleSelection]),
        MenuElement(id: "by-name", parent: "sort", title: "Name", state: .on),
        MenuElement(id: "by-date", parent: "sort", title: "Date"),
        MenuElement(id: "zoom", kind: .menu, options: [.inline]),
        MenuElement(id: "zoom-in", parent: "zoom", title: "Zoom In"),
        MenuElement(id: "settings", parent: "zoom", title: "iCloud Settings…"),
        MenuElement(id: "end", kind: .menu, options: [.inline]),
        MenuElement(id: "recent", parent: "end", kind: .deferred),
        MenuElement(id: "secret", parent: "end", title: "Save", attributes: [.hidden], shortcut: "<Control>s"),
        MenuElement(id: "delete", parent: "end", title: "Move to Trash", attributes: [.destructive]),
    ]

    func testACleanMenuHasNoFindings() {
        XCTAssertEqual(findings(cleanMenu), [])
        XCTAssertEqual(findings(cleanMenu, kind: .edit), [])
        XCTAssertEqual(findings([]), [])
    }

    func testASubmenuInsideASubmenu() {
        let menu = [Fixtures.submenu("a", title: "Arrange"), Fixtures.submenu("b", parent: "a", title: "Align"),
                    Fixtures.action("c", parent: "b", title: "Left")]
        assertFinding(menu, .warning, on: "b", saying: "inside another submenu")
        let sectionInSubmenu = [Fixtures.submenu("a", title: "Arrange"), Fixtures.section("s", parent: "a"),
                                Fixtures.action("c", parent: "s", title: "Left")]
        XCTAssertEqual(findings(sectionInSubmenu), [])
    }

    func testMoreThanThreeSections() {
        var menu: [MenuElement] = []
        for index in 1...4 {
            menu.append(Fixtures.section("s\(index)"))
            menu.append(Fixtures.action("a\(index)", parent: "s\(index)", title: "Do \(index)"))
        }
        assertFinding(menu, .warning, on: "", saying: "4 sections")
        XCTAssertEqual(findings(Array(menu.prefix(6))), [], "three sections are fine")
        let looseRuns = [Fixtures.action("a", title: "Do A"), Fixtures.section("s"),
                         Fixtures.action("b", parent: "s", title: "Do B"), Fixtures.action("c", title: "Do C"),
                         Fixtures.section("t"), Fixtures.action("d", parent: "t", title: "Do D")]
        assertFinding(looseRuns, .warning, on: "", saying: "4 sections")
    }

    func testIconsOnSomeSiblingsButNotAll() {
        let menu = [Fixtures.action("duplicate", title: "Duplicate", icon: "edit-copy"), Fixtures.action("rename", title: "Rename")]
        assertFinding(menu, .warning, on: "rename", saying: "no icon")
        XCTAssertEqual(findings([Fixtures.action("duplicate", title: "Duplicate"), Fixtures.action("rename", title: "Rename")]), [])
    }

    func testAnOpenItemInAContextMenu() {
        for title in ["Open", "Open…", "open..."] {
            let menu = [Fixtures.action("open", title: title), Fixtures.action("rename", title: "Rename")]
            XCTAssertTrue(findings(menu).contains { $0.elementId == "open" && $0.message.contains("repeats") }, title)
        }
        XCTAssertFalse(findings([Fixtures.action("o", title: "Open in New Window")]).contains { $0.elementId == "o" })
        XCTAssertFalse(findings([Fixtures.action("o", title: "Open")], kind: .edit).contains { $0.message.contains("repeats") })
    }

    func testKeyboardShortcutsInAContextMenu() {
        let menu = [Fixtures.action("copy", title: "Duplicate", shortcut: "<Control>d")]
        assertFinding(menu, .warning, on: "copy", saying: "shortcut")
        XCTAssertEqual(findings(menu, kind: .edit), [], "edit menus may show shortcuts")
    }

    func testDestructiveItemsNotLast() {
        let menu = [Fixtures.action("delete", title: "Delete", attributes: [.destructive]), Fixtures.action("rename", title: "Rename")]
        assertFinding(menu, .warning, on: "delete", saying: "not last")
        let destructiveMenu = [Fixtures.submenu("danger", title: "Danger Zone", options: [.destructive]),
                               Fixtures.action("wipe", parent: "danger", title: "Wipe"),
                               Fixtures.action("rename", title: "Rename")]
        assertFinding(destructiveMenu, .warning, on: "danger", saying: "not last")
    }

    func testTitlesThatAreNotTitleStyle() {
        assertFinding([Fixtures.action("a", title: "Copy link")], .warning, on: "a", saying: "capitalize 'link'")
        assertFinding([Fixtures.action("a", title: "copy Link")], .warning, on: "a", saying: "capitalize 'copy'")
        assertFinding([Fixtures.action("a", title: "the Photo")], .warning, on: "a", saying: "capitalize 'the'")
        assertFinding([Fixtures.action("a", title: "Look Up “word” now")], .warning, on: "a", saying: "capitalize 'now'")
        for fine in ["Copy Link", "Add to Photos", "Delete", "Zoom In", "Log In", "Share…", "Save As…",
                     "Move to iCloud", "Open in New Window", "Paste and Match Style", "Convert to PDF", "Print 2 Copies",
                     "Look Up “word”", "Search for “two words” Online", "Search with Google"] {
            // Titles of system commands are the subject of another rule (testAnAppItemThatRepeatsASystemCommand).
            XCTAssertEqual(findings([Fixtures.action("a", title: fine)], kind: .edit).filter { !$0.message.contains("MenuBus adds") },
                           [], fine)
        }
    }

    func testTitlesThatDoNotStartWithAVerb() {
        assertFinding([Fixtures.action("a", title: "The Photo")], .info, on: "a", saying: "verb")
        assertFinding([Fixtures.action("a", title: "My Files")], .info, on: "a", saying: "verb")
        XCTAssertEqual(findings([Fixtures.submenu("m", title: "The Usual"), Fixtures.action("x", parent: "m", title: "Go")]), [],
                       "menus are named, not verbs")
    }

    func testDuplicateIds() {
        let menu = [Fixtures.action("a", title: "Copy"), Fixtures.action("a", title: "Paste")]
        assertFinding(menu, .error, on: "a", saying: "already used")
    }

    func testMoreThanOneOnItemInASingleSelectionMenu() {
        let menu = [Fixtures.submenu("sort", title: "Sort By", options: [.singleSelection]),
                    Fixtures.action("name", parent: "sort", title: "Name", state: .on),
                    Fixtures.action("date", parent: "sort", title: "Date", state: .on)]
        assertFinding(menu, .warning, on: "sort", saying: "2 of its items are on")
        var plain = menu
        plain[0].options = []
        XCTAssertEqual(findings(plain), [], "a menu without single-selection may have several on")
    }

    func testValidationFaultsAreErrorsNotThrows() {
        let menu = [Fixtures.action("a", parent: "nowhere", title: "Copy"), MenuElement(id: "b"),
                    MenuElement(id: "menubus:x", title: "Paste"), MenuElement(id: "bad id", title: "Cut")]
        let found = findings(menu)
        assertFinding(menu, .error, on: "a", saying: "not an element of this menu")
        assertFinding(menu, .error, on: "b", saying: "needs a title")
        assertFinding(menu, .error, on: "menubus:x", saying: "reserved")
        assertFinding(menu, .error, on: "bad id", saying: "may only contain")
        XCTAssertTrue(found.allSatisfy { $0.message.first?.isUppercase ?? false }, "\(found)")
        XCTAssertTrue(found.allSatisfy { $0.message.hasSuffix(".") }, "\(found)")
    }

    func testFindingsComeInElementOrder() {
        let menu = [Fixtures.action("z", title: "copy link"), Fixtures.action("a", title: "Duplicate", shortcut: "<Control>d"),
                    MenuElement(id: "b")]
        XCTAssertEqual(findings(menu).map(\.elementId), ["z", "a", "b"])
    }

    func testHiddenItemsDoNotCountForLayoutRules() {
        let menu = [Fixtures.action("copy", title: "Duplicate", icon: "edit-copy"),
                    Fixtures.action("secret", title: "Secret", attributes: [.hidden]),
                    Fixtures.action("gone", title: "Delete", attributes: [.destructive, .hidden]),
                    Fixtures.action("paste", title: "Paste", icon: "edit-paste")]
        XCTAssertEqual(findings(menu), [])
    }

    /// An app item that repeats a system command MenuBus adds, by its
    /// command, its title (in the user's language too) or its accelerator.
    func testAnAppItemThatRepeatsASystemCommand() {
        assertFinding([MenuElement(id: "c", title: "Copy Text", command: .copy)], kind: .edit, .warning, on: "c",
                      saying: "performs the system command 'copy', which MenuBus adds to every edit menu")
        assertFinding([Fixtures.action("c", title: "Copy")], kind: .edit, .warning, on: "c", saying: "title of the system command 'copy'")
        assertFinding([Fixtures.action("c", title: "copy…")], kind: .edit, .warning, on: "c", saying: "title of the system command")
        assertFinding([Fixtures.action("u", title: "Undo")], kind: .edit, .warning, on: "u", saying: "'undo'")
        assertFinding([Fixtures.action("c", title: "Copy")], .warning, on: "c", saying: "every context menu")
        // In the user's language, and still in English.
        let german = SystemTitles(translations: ["Copy": "Kopieren", "Paste": "Einfügen"], rightToLeft: false)
        let kopieren = Lint.check(kind: .edit, elements: [Fixtures.action("k", title: "Kopieren"), Fixtures.action("p", title: "Paste")],
                                  titles: german)
        XCTAssertEqual(kopieren.filter { $0.message.contains("title of the system command") }.map(\.elementId), ["k", "p"])
        XCTAssertFalse(findings([Fixtures.action("k", title: "Kopieren")], kind: .edit).contains { $0.message.contains("MenuBus adds") },
                       "an English menu has no Kopieren")
        // By the accelerator, however spelled, in an edit menu.
        for spelled in ["<Control>c", "<Ctrl>C", "<Primary>c"] {
            assertFinding([Fixtures.action("d", title: "Duplicate", shortcut: spelled)], kind: .edit, .warning, on: "d",
                          saying: "the accelerator of the system command 'copy'")
        }
        assertFinding([Fixtures.action("r", title: "Rotate", shortcut: "<Shift><Ctrl>z")], kind: .edit, .warning, on: "r",
                      saying: "'redo'")
        // Not a duplicate: another title or key, a role MenuBus adds only with a provider, a hidden item, MenuBus's own.
        let clean = [Fixtures.action("a", title: "Copy Link"), Fixtures.action("b", title: "Duplicate", shortcut: "<Control>d"),
                     Fixtures.action("l", title: "Look Up"), Fixtures.action("s", title: "Share…"),
                     Fixtures.action("h", title: "Paste", attributes: [.hidden]),
                     MenuElement(id: "menubus:copy", title: "Copy", command: .copy)]
        XCTAssertEqual(Lint.check(kind: .edit, elements: clean, composed: true).filter { $0.message.contains("MenuBus adds") }, [])
        // A context menu adds Copy alone: Paste is the edit-only rule's, Delete nobody's.
        XCTAssertFalse(findings([Fixtures.action("p", title: "Paste"), Fixtures.action("d", title: "Delete")])
            .contains { $0.message.contains("MenuBus adds") })
    }
}
