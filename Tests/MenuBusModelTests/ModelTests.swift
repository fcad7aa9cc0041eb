import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

final class ModelTests: XCTestCase {
    func testElementDefaultsAreTheAPIDefaults() {
        let element = MenuElement(id: "a")
        XCTAssertEqual(element.parent, "")
        XCTAssertEqual(element.kind, .action)
        XCTAssertEqual(element.state, .off)
        XCTAssertTrue(element.cached)
        XCTAssertTrue(element.attributes.isEmpty)
        XCTAssertTrue(element.options.isEmpty)
        XCTAssertNil(element.elementSize)
    }

    func testAttributeAndOptionSetsRoundTripThroughTheirBits() {
        for attributes in powerSet(MenuElement.Attribute.allCases) {
            var element = MenuElement(id: "a", attributes: attributes)
            XCTAssertEqual(element.attributes, attributes)
            for attribute in MenuElement.Attribute.allCases {
                XCTAssertEqual(element.has(attribute), attributes.contains(attribute))
            }
            element.attributes = []
            XCTAssertEqual(element, MenuElement(id: "a"))
        }
        for options in powerSet(MenuElement.MenuOption.allCases) {
            let element = MenuElement(id: "a", kind: .menu, options: options)
            XCTAssertEqual(element.options, options)
        }
        var element = MenuElement(id: "a", kind: .menu)
        element.options.insert(.palette)
        XCTAssertEqual(element.options, [.palette])
    }

    /// Copies share their fields until one changes: each property changed
    /// on a copy leaves the original as it was, and equal elements hash
    /// alike whether or not they share storage.
    func testAnElementIsAValueWhoseCopiesChangeAlone() {
        let original = MenuElement(id: "a", parent: "p", kind: .menu, title: "Title", subtitle: "Sub", icon: "edit-copy",
                                   attributes: [.disabled], state: .on, shortcut: "<Control>c", command: .copy,
                                   options: [.inline], elementSize: .small, cached: true)
        let changes: [(inout MenuElement) -> Void] = [
            { $0.id = "b" }, { $0.parent = "" }, { $0.kind = .action }, { $0.title = nil }, { $0.subtitle = "Other" },
            { $0.icon = nil }, { $0.attributes = [.hidden] }, { $0.state = .mixed }, { $0.shortcut = nil },
            { $0.command = .paste }, { $0.options = [] }, { $0.elementSize = .large }, { $0.cached = false },
            { $0.insert(.palette) },
        ]
        for (index, change) in changes.enumerated() {
            var copy = original
            XCTAssertEqual(copy, original)
            change(&copy)
            XCTAssertNotEqual(copy, original, "change \(index)")
            XCTAssertEqual(original.id, "a")
            XCTAssertEqual(original.title, "Title")
            XCTAssertEqual(original.attributes, [.disabled])
            XCTAssertEqual(original.options, [.inline])
            XCTAssertEqual(original.state, .on)
            XCTAssertEqual(original.cached, true)
        }
        let rebuilt = MenuElement(id: "a", parent: "p", kind: .menu, title: "Title", subtitle: "Sub", icon: "edit-copy",
                                  attributes: [.disabled], state: .on, shortcut: "<Control>c", command: .copy,
                                  options: [.inline], elementSize: .small, cached: true)
        XCTAssertEqual(rebuilt, original)
        XCTAssertEqual(rebuilt.hashValue, original.hashValue)
        XCTAssertEqual(Set([original, rebuilt, original]).count, 1)
        var changedBack = original
        changedBack.title = "Other"
        changedBack.title = "Title"
        XCTAssertEqual(changedBack, original)
        XCTAssertEqual(changedBack.hashValue, original.hashValue)
        // Printed with its fields, as test failures show it.
        let printed = String(describing: original)
        XCTAssertTrue(printed.hasPrefix("MenuElement(id: \"a\", parent: \"p\", kind: "), printed)
        XCTAssertTrue(printed.contains("title: Optional(\"Title\")"), printed)
        XCTAssertFalse(printed.contains("storage"), printed)
    }

    func testRawValuesAreTheAPIStrings() {
        XCTAssertEqual(MenuElement.Kind.allCases.map(\.rawValue), ["action", "menu", "deferred"])
        XCTAssertEqual(MenuElement.Attribute.allCases.map(\.rawValue),
                       ["destructive", "disabled", "hidden", "keeps-menu-presented"])
        XCTAssertEqual(MenuElement.State.allCases.map(\.rawValue), ["off", "on", "mixed"])
        XCTAssertEqual(MenuElement.MenuOption.allCases.map(\.rawValue),
                       ["inline", "destructive", "single-selection", "palette"])
        XCTAssertEqual(MenuElement.ElementSize.allCases.map(\.rawValue), ["small", "medium", "large"])
        XCTAssertEqual(ContextInfo.Kind.allCases.map(\.rawValue), ["text", "image", "file", "url", "item", "button", "history"])
        XCTAssertEqual(Selection.Kind.allCases.map(\.rawValue), ["none", "caret", "range", "all"])
        XCTAssertEqual(Selection.TextAttribute.allCases.map(\.rawValue), ["bold", "italic", "underline"])
        XCTAssertEqual(LintFinding.Severity.allCases.map(\.rawValue), ["error", "warning", "info"])
        XCTAssertEqual(MenuKind.allCases.map(\.rawValue), ["context", "edit"])
    }

    func testDestructiveMeansTheAttributeOrADestructiveMenu() {
        XCTAssertTrue(MenuElement(id: "a", title: "A", attributes: [.destructive]).isDestructive)
        XCTAssertTrue(MenuElement(id: "m", kind: .menu, title: "M", options: [.destructive]).isDestructive)
        XCTAssertFalse(MenuElement(id: "a", title: "A", attributes: [.disabled]).isDestructive)
        XCTAssertTrue(Fixtures.section("s").isSection)
        XCTAssertFalse(Fixtures.section("s").isSubmenu)
        XCTAssertTrue(Fixtures.submenu("m").isSubmenu)
    }

    func testUndoTitlesNameTheActionOrStayBare() {
        let table: [(String?, String)] = [("Typing", "Undo Typing"), (nil, "Undo"), ("", "Undo"), ("  ", "Undo")]
        for (name, title) in table {
            XCTAssertEqual(UndoSummary(canUndo: true, undoActionName: name).undoTitle, title)
            XCTAssertEqual(UndoSummary(canRedo: true, redoActionName: name).redoTitle,
                           title.replacing("Undo", with: "Redo"))
        }
    }

    func testSupportedCommandsDefaultFollowsTheKind() {
        XCTAssertEqual(ContextInfo(kind: .text).effectiveSupportedCommands, Set(StandardCommand.allCases))
        for kind in [ContextInfo.Kind.image, .file, .url, .item] {
            XCTAssertEqual(ContextInfo(kind: kind).effectiveSupportedCommands, [.copy, .share], "\(kind)")
        }
        let listed = ContextInfo(kind: .text, supportedCommands: [.copy])
        XCTAssertEqual(listed.effectiveSupportedCommands, [.copy])
        XCTAssertTrue(listed.supports(.copy))
        XCTAssertFalse(listed.supports(.paste))
        XCTAssertEqual(ContextInfo(kind: .text, supportedCommands: []).effectiveSupportedCommands, [])
        for command in StandardCommand.allCases {
            for kind in ContextInfo.Kind.allCases {
                let context = ContextInfo(kind: kind)
                XCTAssertEqual(context.supports(command), context.effectiveSupportedCommands.contains(command))
            }
        }
    }

    func testContentTypesDefaultFollowsTheKind() {
        XCTAssertEqual(ContextInfo(kind: .text).effectiveContentTypes, ["text/plain"])
        XCTAssertEqual(ContextInfo(kind: .image).effectiveContentTypes, ["image/*"])
        XCTAssertEqual(ContextInfo(kind: .url).effectiveContentTypes, ["text/uri-list"])
        XCTAssertEqual(ContextInfo(kind: .item).effectiveContentTypes, [])
        XCTAssertEqual(ContextInfo(kind: .text, contentTypes: ["text/html"]).effectiveContentTypes, ["text/html"])
    }

    func testContentTypeMatching() {
        let table: [(accepted: String, offered: String, match: Bool)] = [
            ("text/plain", "text/plain", true),
            ("text/plain", "text/plain;charset=utf-8", true),
            ("text/plain", " Text/Plain ; charset=UTF-8", true),
            ("text/plain", "text/html", true),
            ("text/plain", "text/markdown", true),
            ("text/html", "text/plain", false),
            ("text/*", "text/markdown", true),
            ("text/markdown", "text/*", true),
            ("image/*", "image/png", true),
            ("image/png", "image/jpeg", false),
            ("*/*", "application/pdf", true),
            ("text/plain", "image/png", false),
            ("text/plain", "UTF8_STRING", true),
            ("text/plain", "STRING", true),
            ("text/plain", "TARGETS", false),
            ("text/plain", "", false),
            ("", "text/plain", false),
            ("image/*", "imagex/png", false),
        ]
        for row in table {
            XCTAssertEqual(ContentType(row.accepted).accepts(ContentType(row.offered)), row.match,
                           "\(row.accepted) accepts \(row.offered)")
        }
        XCTAssertEqual(ContentType("Text/HTML; charset=utf-8").essence, "text/html")
        XCTAssertEqual(ContentType("text/html").slash, 4)
    }

    func testProviderMatchesContentTypesAndEditability() {
        XCTAssertTrue(Fixtures.upper.matches(Fixtures.textField))
        XCTAssertFalse(Fixtures.upper.matches(Fixtures.label), "requires-editable")
        XCTAssertTrue(Fixtures.lookup.matches(Fixtures.label))
        XCTAssertFalse(Fixtures.lookup.matches(Fixtures.photo))
        let imageShare = ProviderInfo(id: "s", title: "S", role: .share, contentTypes: ["image/*"])
        XCTAssertTrue(imageShare.matches(Fixtures.photo))
        XCTAssertFalse(imageShare.matches(Fixtures.textField))
    }

    func testSelectedContentNeedsARangeOrAllThatIsNotEmpty() {
        XCTAssertTrue(Selection(kind: .range, length: 1).hasSelectedContent)
        XCTAssertTrue(Selection(kind: .all, length: 1).hasSelectedContent)
        XCTAssertFalse(Selection(kind: .range, length: 0).hasSelectedContent)
        XCTAssertFalse(Selection(kind: .caret, length: 3).hasSelectedContent)
        XCTAssertFalse(Selection().hasSelectedContent)
    }

    private func powerSet<E: Hashable>(_ items: [E]) -> [Set<E>] {
        (0..<(1 << items.count)).map { mask in
            Set(items.indices.filter { mask & (1 << $0) != 0 }.map { items[$0] })
        }
    }
}
