import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures
import MenuBusRandomFixtures

/// One row per rule of `Lint` added or changed for the HIG: the menu, the
/// finding expected (or none), and the HIG's reason the message must name.
final class LintRuleTableTests: XCTestCase {
    private struct Row {
        let name: String
        var kind: MenuKind = .context
        let menu: [MenuElement]
        /// nil: the menu must be clean.
        var expected: (severity: LintFinding.Severity, id: String, phrase: String)?
        /// Words of the reason the message gives.
        var reason: String?
    }

    private static func flat(_ count: Int) -> [MenuElement] {
        (1...count).map { Fixtures.action("item-\($0)", title: "Do Thing \($0)") }
    }

    private static func sections(_ count: Int, of size: Int) -> [MenuElement] {
        (1...count).flatMap { section in
            [Fixtures.section("s\(section)")]
                + (1...size).map { Fixtures.action("i\(section)-\($0)", parent: "s\(section)", title: "Do \(section) \($0)") }
        }
    }

    private let rows: [Row] = [
        // Icons: submenus need no glyph.
        Row(name: "a submenu without an icon beside items with icons",
            menu: [Fixtures.action("duplicate", title: "Duplicate", icon: "edit-copy"),
                   Fixtures.action("rename", title: "Rename", icon: "edit-rename"),
                   Fixtures.submenu("sort", title: "Sort By"), Fixtures.action("name", parent: "sort", title: "Name")]),
        Row(name: "seed 003: Share / Edit.. ▸ Copy, Delete",
            menu: [Fixtures.action("share", title: "Share", icon: "document-send"),
                   Fixtures.submenu("edit", title: "Edit.."),
                   Fixtures.action("copy", parent: "edit", title: "Copy"),
                   Fixtures.action("delete", parent: "edit", title: "Delete", attributes: [.destructive])],
            expected: (.warning, "copy", "MenuBus adds"), reason: "once"),
        Row(name: "an action without an icon beside one with",
            menu: [Fixtures.action("copy", title: "Copy", icon: "edit-copy"), Fixtures.action("rename", title: "Rename")],
            expected: (.warning, "rename", "no icon"), reason: "scan"),

        // Title style: prepositions of four letters or fewer stay lower-case.
        Row(name: "from", menu: [Fixtures.action("a", title: "Import from File")]),
        Row(name: "into", menu: [Fixtures.action("a", title: "Move into Folder")]),
        Row(name: "via", menu: [Fixtures.action("a", title: "Send via Mail")]),
        Row(name: "over", menu: [Fixtures.action("a", title: "Look Up over Network")]),
        Row(name: "yet, so", menu: [Fixtures.action("a", title: "Save yet Keep Open"), Fixtures.action("b", title: "Wait so Others Can")]),
        Row(name: "a lower-case word that is no minor word",
            menu: [Fixtures.action("a", title: "Copy link")], expected: (.warning, "a", "capitalize 'link'")),

        // Too many items.
        Row(name: "15 items are fine", menu: flat(15)),
        Row(name: "25 flat items", menu: flat(25), expected: (.warning, "", "25 items"), reason: "use most"),
        Row(name: "items of sections count at their level", menu: sections(3, of: 6),
            expected: (.warning, "", "18 items"), reason: "use most"),
        Row(name: "a submenu's items count for the submenu",
            menu: [Fixtures.submenu("more", title: "More")]
                + (1...16).map { Fixtures.action("m\($0)", parent: "more", title: "Do \($0)") },
            expected: (.warning, "more", "16 items"), reason: "use most"),

        // A command, or a title, twice.
        Row(name: "one system command twice",
            menu: [MenuElement(id: "a", title: "Copy", command: .copy), MenuElement(id: "b", title: "Copy Text", command: .copy)],
            expected: (.warning, "b", "system command 'copy'"), reason: "wonder which"),
        Row(name: "one title twice at a level",
            menu: [Fixtures.section("s"), Fixtures.action("a", parent: "s", title: "Rename"),
                   Fixtures.action("b", title: "Rename…")],
            expected: (.warning, "b", "same title"), reason: "guess which"),
        Row(name: "one title in two submenus",
            menu: [Fixtures.submenu("x", title: "Left"), Fixtures.action("a", parent: "x", title: "Align"),
                   Fixtures.submenu("y", title: "Right"), Fixtures.action("b", parent: "y", title: "Align")]),

        // Empty titles are refused.
        Row(name: "an empty title", menu: [Fixtures.action("a", title: "")],
            expected: (.error, "a", "title is empty"), reason: "cannot read"),
        Row(name: "a blank submenu title",
            menu: [Fixtures.submenu("m", title: "  "), Fixtures.action("a", parent: "m", title: "Go")],
            expected: (.error, "m", "title is empty"), reason: "cannot read"),

        // One item, one kind of menu.
        Row(name: "edit commands in a context menu",
            menu: [MenuElement(id: "p", title: "Paste", command: .paste), Fixtures.action("rename", title: "Rename")],
            expected: (.warning, "p", "either a context menu or an edit menu"), reason: "long press"),
        Row(name: "edit commands in an edit menu: MenuBus adds them", kind: .edit,
            menu: [MenuElement(id: "p", title: "Paste", command: .paste)],
            expected: (.warning, "p", "system command 'paste', which MenuBus adds"), reason: "once"),
        Row(name: "Copy belongs in both: MenuBus adds it to both", kind: .edit,
            menu: [MenuElement(id: "c", title: "Copy", command: .copy), Fixtures.action("rename", title: "Rename")],
            expected: (.warning, "c", "which MenuBus adds to every edit menu"), reason: "once"),
        Row(name: "an accelerator of a system command in an edit menu", kind: .edit,
            menu: [Fixtures.action("d", title: "Duplicate", shortcut: "<Ctrl>V")],
            expected: (.warning, "d", "accelerator of the system command 'paste'"), reason: "one key does one thing"),
    ]

    func testEachRuleAsATable() {
        for row in rows {
            let found = Lint.check(kind: row.kind, elements: row.menu)
            guard let expected = row.expected else {
                XCTAssertEqual(found, [], row.name)
                continue
            }
            let match = found.first {
                $0.severity == expected.severity && $0.elementId == expected.id && $0.message.contains(expected.phrase)
            }
            XCTAssertNotNil(match, "\(row.name): expected \(expected), got \(found)")
            if let reason = row.reason, let match {
                XCTAssertTrue(match.message.contains(reason), "\(row.name): the message names no reason: \(match.message)")
            }
        }
    }

    func testAnEmptyTitleIsRefusedNamingTheField() {
        XCTAssertThrowsError(try ElementValidation.validate([Fixtures.action("ok", title: "Go"), Fixtures.action("a", title: "")])) {
            let error = $0 as? ModelError
            XCTAssertEqual(error?.field, "items[1].properties.title")
            XCTAssertEqual(error?.kind, .invalidArgument)
        }
        XCTAssertNoThrow(try ElementValidation.validate([MenuElement(id: "s", kind: .menu, title: "", options: [.inline])]),
                         "a section may go without a label")
    }

    func testMenuBusOwnItemsDoNotCountTowardTheItemLimit() {
        let system = StandardCommand.allCases.filter { $0 != .replaceSelection }.map {
            MenuElement(id: ElementID.command($0), title: $0.title, icon: $0.menuIcon, command: $0)
        }
        XCTAssertFalse(Lint.check(kind: .edit, elements: system + Self.flat(5)).contains { $0.message.contains("items at one level") })
    }
}

final class TitleComparisonTests: XCTestCase {
    func testTheFastPathAgreesWithTheGeneralOne() {
        let titles = ["Copy", "copy", "Share…", "Share...", "  Paste  and Match   Style ", "Re-do!", "(Copy)", "…", "",
                      "Save As…", "Copy \"Link\"", "Tab\tSeparated", "A", "99 Problems", "-x-", "Open…Recent",
                      "Export the Selected Rows as a Spreadsheet…", "Item 5"]
        for title in titles {
            let general = TitleStyle.words(of: title)
            let expected = general.isEmpty ? nil : general.joined(separator: " ").lowercased()
            XCTAssertEqual(TitleStyle.comparable(title), expected, title)
        }
        XCTAssertEqual(TitleStyle.comparable("Share…"), TitleStyle.comparable("share"))
        XCTAssertEqual(TitleStyle.comparable("Копировать…"), "копировать")
    }

    /// A title and its comparable form have the same head (the rule that
    /// lets a head rule a title out), for chosen and random titles.
    func testATitleHasTheHeadOfItsComparableForm() {
        var titles = ["Copy", "COPY", "co py", "Cut", "Cutter", "(Cut)", "…Copy", "Copy…", "İtalic", "Itálic", "Ital\u{301}ic",
                      "Kelvin \u{212A}", "\u{212A}elvin", "", "…", "-", "42", "Undo Typing", "Копировать", "Zoom In"]
        var random = SplitMix(seed: 0x6865_6164)
        let pieces = ["a", "B", "z", "0", " ", "\t", "-", "…", "é", "İ", "\u{212A}", ".", "'", "Co", "py"]
        for _ in 0..<2_000 {
            titles.append((0..<random.next(upTo: 9)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined())
        }
        for title in titles {
            guard let head = TitleStyle.comparableHead(title) else { continue }
            guard let key = TitleStyle.comparable(title) else {
                XCTAssertEqual(head, 0, "a title with nothing to compare has no head: \(title.debugDescription)")
                continue
            }
            XCTAssertEqual(TitleStyle.comparableHead(key), head, title.debugDescription)
        }
        XCTAssertNotEqual(TitleStyle.comparableHead("Item 5"), TitleStyle.comparableHead("Italic"))
        XCTAssertNotEqual(TitleStyle.comparableHead("Cut"), TitleStyle.comparableHead("Cutter"))
        XCTAssertNil(TitleStyle.comparableHead("İtalic"), "a non-ASCII start is compared in full")
    }

    /// Composed and decomposed spellings are one title (Swift compares
    /// them so): an app item spelled either way covers a system title
    /// spelled the other, as a key and as an extra title.
    func testCanonicallyEquivalentTitlesAreOneTitle() {
        let pairs = [("Usuń", "Usun\u{301}"), ("Usun\u{301}", "Usuń"), ("Über", "U\u{308}ber"), ("U\u{308}ber", "Über"),
                     ("Kopírovat", "Kopi\u{301}rovat"), ("Kopi\u{301}rovat", "Kopírovat")]
        for (system, app) in pairs {
            let titles = SystemTitles(translations: ["Delete": system], rightToLeft: false)
            let items = [MenuElement(id: "a", title: app)]
            XCTAssertTrue(AppOffer(items, titles: titles).covers(nil, title: system), "\(app.debugDescription) as a key")
            XCTAssertTrue(AppOffer(items, titles: .english, extra: [system]).covers(nil, title: system),
                          "\(app.debugDescription) as an extra title")
            if let head = TitleStyle.comparableHead(app), let systemHead = TitleStyle.comparableHead(system) {
                XCTAssertEqual(head, systemHead, app.debugDescription)
            }
        }
        XCTAssertNil(TitleStyle.comparableHead("Usun\u{301}"), "a mark on the fourth letter leaves no head")
        XCTAssertFalse(AppOffer([MenuElement(id: "a", title: "Item 5")], titles: .english).covers(nil, title: "Italic"))
    }

    func testEveryKeyIsInItsLanguagesHeads() {
        let german = SystemTitles(translations: ["Copy": "Kopieren", "Cut": "Ausschneiden", "Paste": "Einfügen"],
                                  rightToLeft: false)
        let russian = SystemTitles(translations: ["Copy": "Копировать", "Select All": "Выбрать всё"], rightToLeft: false)
        for titles in [SystemTitles.english, german, russian] {
            for key in titles.keys {
                guard let head = TitleStyle.comparableHead(key) else { continue }
                XCTAssertTrue(titles.keyHeads.mayContain(head), key)
            }
        }
    }
}

