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

    func testRawValuesAreTheAPIStrings() {
        XCTAssertEqual(MenuElement.Kind.allCases.map(\.rawValue), ["action", "menu", "deferred"])
        XCTAssertEqual(MenuElement.Attribute.allCases.map(\.rawValue),
                       ["destructive", "disabled", "hidden", "keeps-menu-presented"])
        XCTAssertEqual(MenuElement.State.allCases.map(\.rawValue), ["off", "on", "mixed"])
        XCTAssertEqual(MenuElement.MenuOption.allCases.map(\.rawValue),
                       ["inline", "destructive", "single-selection", "palette"])
        XCTAssertEqual(MenuElement.ElementSize.allCases.map(\.rawValue), ["small", "medium", "large"])
        XCTAssertEqual(ContextInfo.Kind.allCases.map(\.rawValue), ["text", "image", "file", "url", "item"])
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
