import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures
import MenuBusBenchmarks

final class ContextMenuTests: XCTestCase {
    private func compose(_ items: [MenuElement], context: ContextInfo = Fixtures.photo,
                         providers: [ProviderInfo] = [], selection: Selection = Selection()) -> [MenuElement] {
        ContextMenu.compose(context: context, items: items, providers: providers, selection: selection)
    }

    func testAppItemsComeFirstInTheirOrderAndSuggestionsLast() {
        let menu = compose([Fixtures.action("open-in-tab"), Fixtures.action("rename"), Fixtures.action("duplicate")],
                           providers: [ProviderInfo(id: "s", title: "S", role: .share, contentTypes: ["image/*"])])
        XCTAssertEqual(menu.ids, ["open-in-tab", "rename", "duplicate",
                                  "menubus:section:suggestions", "menubus:copy", "menubus:share"])
        let section = menu.element("menubus:section:suggestions")
        XCTAssertEqual(section?.options, [.inline])
        XCTAssertEqual(section?.parent, "")
        XCTAssertEqual(menu.element("menubus:copy")?.parent, "menubus:section:suggestions")
        XCTAssertEqual(menu.element("menubus:share")?.title, "Share…")
        XCTAssertNoThrow(try ElementValidation.validate(menu, allowReserved: true))
    }

    func testHiddenItemsGoWithTheirChildren() {
        let menu = compose([
            Fixtures.action("a"),
            Fixtures.submenu("more", title: "More"),
            Fixtures.action("b", parent: "more"),
            Fixtures.submenu("secret", parent: "more", title: "Secret"),
            Fixtures.action("c", parent: "secret"),
            MenuElement(id: "secret-shortcut", title: "Save", attributes: [.hidden], shortcut: "<Control>s"),
        ].map { $0.id == "secret" ? with($0) { $0.attributes = [.hidden] } : $0 }, context: ContextInfo())
        XCTAssertEqual(menu.ids, ["a", "more", "b"])
    }

    func testAMenuEmptiedByHidingGoesToo() {
        let menu = compose([
            Fixtures.submenu("more"),
            Fixtures.action("b", parent: "more", attributes: [.hidden]),
            Fixtures.section("empty-by-design"),
            Fixtures.action("c"),
        ], context: ContextInfo())
        XCTAssertEqual(menu.ids, ["empty-by-design", "c"], "a menu that was empty to begin with stays")
    }

    func testDestructiveItemsMoveToTheEndOfTheirSectionKeepingOrder() {
        let menu = compose([
            Fixtures.action("delete", attributes: [.destructive]),
            Fixtures.action("rename"),
            Fixtures.action("erase", attributes: [.destructive]),
            Fixtures.action("duplicate"),
            Fixtures.section("s"),
            Fixtures.action("remove", parent: "s", attributes: [.destructive]),
            Fixtures.action("keep", parent: "s"),
        ], context: ContextInfo())
        XCTAssertEqual(menu.ids, ["rename", "duplicate", "s", "keep", "remove", "delete", "erase"])
    }

    func testADestructiveMenuMovesLikeADestructiveItem() {
        let menu = compose([
            Fixtures.submenu("danger", options: [.destructive]),
            Fixtures.action("wipe", parent: "danger"),
            Fixtures.action("rename"),
        ], context: ContextInfo())
        XCTAssertEqual(menu.ids, ["rename", "danger", "wipe"])
    }

    func testASubmenuInsideASubmenuBecomesAnInlineSection() {
        let menu = compose([
            Fixtures.submenu("sort", title: "Sort By"),
            Fixtures.action("name", parent: "sort"),
            Fixtures.submenu("order", parent: "sort", title: "Order"),
            Fixtures.action("ascending", parent: "order"),
            Fixtures.submenu("deeper", parent: "order", title: "Deeper"),
            Fixtures.action("x", parent: "deeper"),
            Fixtures.section("group", parent: "sort"),
            Fixtures.submenu("inside-section", parent: "group", title: "Inside"),
            Fixtures.action("y", parent: "inside-section"),
        ], context: ContextInfo())
        XCTAssertEqual(menu.ids, ["sort", "name", "order", "ascending", "deeper", "x", "group", "inside-section", "y"])
        XCTAssertTrue(menu.element("sort")?.isSubmenu ?? false, "the first level stays a submenu")
        for id in ["order", "deeper", "inside-section"] {
            XCTAssertEqual(menu.element(id)?.options, [.inline], id)
            XCTAssertNotNil(menu.element(id)?.title, "\(id) keeps its title as a section header")
        }
    }

    func testATopLevelSubmenuInsideASectionStaysASubmenu() {
        let menu = compose([Fixtures.section("s"), Fixtures.submenu("m", parent: "s"), Fixtures.action("a", parent: "m")],
                           context: ContextInfo())
        XCTAssertEqual(menu.element("m")?.options, [])
    }

    func testDeferredElementsPassThroughUntouched() {
        let deferred = MenuElement(id: "recent", kind: .deferred, cached: false)
        let menu = compose([Fixtures.action("a", attributes: [.destructive]), deferred, Fixtures.action("b")],
                           context: ContextInfo())
        XCTAssertEqual(menu.ids, ["recent", "b", "a"])
        XCTAssertEqual(menu.element("recent"), deferred)
    }

    func testCopyIsSuggestedWhereThereIsSomethingToCopy() {
        let rows: [(String, ContextInfo, Selection, Bool)] = [
            ("an image", Fixtures.photo, Selection(), true),
            ("a file", ContextInfo(kind: .file), Selection(), true),
            ("a URL", ContextInfo(kind: .url), Selection(), true),
            ("an item with content types", ContextInfo(kind: .item, contentTypes: ["text/vcard"]), Selection(), true),
            ("an item without content types", ContextInfo(kind: .item), Selection(), false),
            ("selected text", Fixtures.textField, Fixtures.range, true),
            ("text without a selection", Fixtures.textField, Fixtures.caret, false),
            ("an image that does not support copy", ContextInfo(kind: .image, supportedCommands: [.share]), Selection(), false),
        ]
        for (name, context, selection, shown) in rows {
            let menu = compose([Fixtures.action("a")], context: context, selection: selection)
            XCTAssertEqual(menu.ids.contains("menubus:copy"), shown, name)
        }
    }

    func testCopyIsNotSuggestedWhenAnAppItemAlreadyCopies() {
        let ownCopy = MenuElement(id: "copy-photo", title: "Copy Photo", command: .copy)
        XCTAssertFalse(compose([ownCopy]).ids.contains("menubus:copy"))
    }

    func testShareOnlyWithAShareProvider() {
        let imageShare = ProviderInfo(id: "s", title: "S", role: .share, contentTypes: ["image/*"])
        XCTAssertTrue(compose([], providers: [imageShare]).ids.contains("menubus:share"))
        XCTAssertFalse(compose([]).ids.contains("menubus:share"))
        XCTAssertFalse(compose([], providers: [Fixtures.share]).ids.contains("menubus:share"), "text-only share")
    }

    func testMatchingProvidersFollowCopy() {
        let menu = compose([Fixtures.action("a")], context: Fixtures.textField,
                           providers: [Fixtures.upper, Fixtures.translate, Fixtures.share], selection: Fixtures.range)
        XCTAssertEqual(menu.shownItems, ["a", "copy", "translate", "share", "provider:org.example.Upper"])
        let readOnly = compose([], context: Fixtures.label, providers: [Fixtures.upper], selection: Fixtures.range)
        XCTAssertFalse(readOnly.shownItems.contains("provider:org.example.Upper"), "requires-editable")
        let noSelection = compose([], context: Fixtures.textField, providers: [Fixtures.upper], selection: Fixtures.caret)
        XCTAssertEqual(noSelection, [], "text providers need selected text")
    }

    func testRoleSuggestionsNeedTheCommandSupported() {
        let photoTranslate = ProviderInfo(id: "t", title: "T", role: .translate, contentTypes: ["image/*"])
        XCTAssertFalse(compose([], providers: [photoTranslate]).ids.contains("menubus:translate"),
                       "an image supports copy and share by default")
        let supporting = ContextInfo(kind: .image, supportedCommands: [.translate])
        XCTAssertTrue(compose([], context: supporting, providers: [photoTranslate]).ids.contains("menubus:translate"))
    }

    func testNoSuggestionsLeaveNoSection() {
        let menu = compose([Fixtures.action("a")], context: ContextInfo())
        XCTAssertEqual(menu.ids, ["a"])
    }

    func testArrangedItemsAreValidAndKeepTreeOrder() {
        let items = CompositionBenchmark.Workload(itemCount: 50).items
        let menu = compose(items, context: Fixtures.richField, providers: Fixtures.allRoles, selection: Fixtures.range)
        XCTAssertNoThrow(try ElementValidation.validate(menu, allowReserved: true))
        XCTAssertFalse(menu.contains { $0.has(.hidden) })
    }

    func testItemsOutOfTreeOrderAreArrangedTheSame() {
        let interleaved = [
            Fixtures.submenu("a"), Fixtures.submenu("b"),
            Fixtures.action("a1", parent: "a"), Fixtures.action("b1", parent: "b"), Fixtures.action("a2", parent: "a"),
        ]
        XCTAssertEqual(compose(interleaved, context: ContextInfo()).ids, ["a", "a1", "a2", "b", "b1"])
        let jumping = [
            Fixtures.section("m"), Fixtures.section("n", parent: "m"), Fixtures.action("a", parent: "n"),
            Fixtures.section("o"), Fixtures.action("b", parent: "n"), Fixtures.action("c", parent: "m"),
            Fixtures.action("d", parent: "o"), Fixtures.action("e", parent: "n"),
        ]
        let arranged = compose(jumping, context: ContextInfo())
        XCTAssertEqual(arranged.ids, ["m", "n", "a", "b", "e", "c", "o", "d"])
        XCTAssertEqual(arranged.map(\.parent), ["", "m", "n", "n", "n", "m", "", "o"])
    }

    func testItemsUnderAMissingParentAreLeftOut() {
        let menu = compose([Fixtures.action("a"), Fixtures.action("b", parent: "gone"),
                            Fixtures.submenu("m", parent: "gone"), Fixtures.action("c", parent: "m")],
                           context: ContextInfo())
        XCTAssertEqual(menu.ids, ["a"])
    }

    private func with(_ element: MenuElement, _ change: (inout MenuElement) -> Void) -> MenuElement {
        var copy = element
        change(&copy)
        return copy
    }
}
