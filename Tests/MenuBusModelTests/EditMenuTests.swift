import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures
import MenuBusBenchmarks

final class EditMenuTests: XCTestCase {
    private struct Row {
        let name: String
        var context = Fixtures.textField
        var selection = Fixtures.range
        var undo: UndoSummary?
        var providers: [ProviderInfo] = []
        let item: String
        let shown: Bool
    }

    private func compose(_ row: Row, appItems: [MenuElement] = []) -> [MenuElement] {
        EditMenu.compose(context: row.context, selection: row.selection, undo: row.undo,
                         providers: row.providers, appItems: appItems)
    }

    /// Every row of the table of docs/DESIGN.md, "Edit menu rules", each shown case next to the
    /// case that hides it.
    func testEveryRowShowsExactlyWhenItsConditionHolds() {
        let rich = Fixtures.richField
        let html = ["text/html", "text/plain"]
        let rows: [Row] = [
            // Group 1
            Row(name: "undo when the document can undo", undo: UndoSummary(canUndo: true), item: "undo", shown: true),
            Row(name: "no undo when it cannot", undo: UndoSummary(canRedo: true), item: "undo", shown: false),
            Row(name: "no undo without a document", item: "undo", shown: false),
            Row(name: "redo when the document can redo", undo: UndoSummary(canRedo: true), item: "redo", shown: true),
            Row(name: "no redo when it cannot", undo: UndoSummary(canUndo: true), item: "redo", shown: false),
            // Cut
            Row(name: "cut a range", item: "cut", shown: true),
            Row(name: "cut all", selection: Selection(kind: .all, length: 9), item: "cut", shown: true),
            Row(name: "no cut at a caret", selection: Fixtures.caret, item: "cut", shown: false),
            Row(name: "no cut of an empty range", selection: Selection(kind: .range, length: 0), item: "cut", shown: false),
            Row(name: "no cut when read-only", context: Fixtures.label, item: "cut", shown: false),
            // Copy
            Row(name: "copy a range", item: "copy", shown: true),
            Row(name: "copy read-only text", context: Fixtures.label, item: "copy", shown: true),
            Row(name: "copy all", selection: Selection(kind: .all, length: 1), item: "copy", shown: true),
            Row(name: "no copy without selection", selection: Selection(), item: "copy", shown: false),
            Row(name: "no copy at a caret", selection: Fixtures.caret, item: "copy", shown: false),
            Row(name: "no copy of an empty range", selection: Selection(kind: .range, length: 0), item: "copy", shown: false),
            // Paste
            Row(name: "paste text", selection: Selection(kind: .caret, pasteboardTypes: ["text/plain"]),
                item: "paste", shown: true),
            Row(name: "paste text with a charset", selection: Selection(kind: .caret, pasteboardTypes: ["text/plain;charset=utf-8"]),
                item: "paste", shown: true),
            Row(name: "paste HTML as plain text", selection: Selection(kind: .caret, pasteboardTypes: ["text/html"]),
                item: "paste", shown: true),
            Row(name: "paste an X11 string", selection: Selection(kind: .caret, pasteboardTypes: ["UTF8_STRING"]),
                item: "paste", shown: true),
            Row(name: "paste an image into an image context",
                context: ContextInfo(kind: .image, contentTypes: ["image/*"], editable: true, supportedCommands: [.paste]),
                selection: Selection(pasteboardTypes: ["image/png"]), item: "paste", shown: true),
            Row(name: "no paste of an image into text", selection: Selection(kind: .caret, pasteboardTypes: ["image/png"]),
                item: "paste", shown: false),
            Row(name: "no paste from an empty clipboard", selection: Fixtures.caret, item: "paste", shown: false),
            Row(name: "no paste when read-only", context: Fixtures.label,
                selection: Selection(kind: .caret, pasteboardTypes: ["text/plain"]), item: "paste", shown: false),
            // Paste and Match Style
            Row(name: "paste and match style with HTML", context: rich,
                selection: Selection(kind: .caret, pasteboardTypes: html), item: "paste-and-match-style", shown: true),
            Row(name: "paste and match style with RTF", context: rich,
                selection: Selection(kind: .caret, pasteboardTypes: ["application/rtf"]), item: "paste-and-match-style", shown: true),
            Row(name: "no paste and match style for plain text", context: rich,
                selection: Selection(kind: .caret, pasteboardTypes: ["text/plain"]), item: "paste-and-match-style", shown: false),
            Row(name: "no paste and match style in a plain field",
                selection: Selection(kind: .caret, pasteboardTypes: html), item: "paste-and-match-style", shown: false),
            Row(name: "no paste and match style when read-only",
                context: ContextInfo(kind: .text, hasContent: true, richText: true),
                selection: Selection(kind: .caret, pasteboardTypes: html), item: "paste-and-match-style", shown: false),
            // Delete
            Row(name: "delete a range", item: "delete", shown: true),
            Row(name: "no delete when read-only", context: Fixtures.label, item: "delete", shown: false),
            Row(name: "no delete at a caret", selection: Fixtures.caret, item: "delete", shown: false),
            Row(name: "no delete of an empty range", selection: Selection(kind: .range, length: 0), item: "delete", shown: false),
            // Select
            Row(name: "select at a caret", selection: Fixtures.caret, item: "select", shown: true),
            Row(name: "select with no selection", selection: Selection(), item: "select", shown: true),
            Row(name: "no select over a range", item: "select", shown: false),
            Row(name: "no select without content", context: ContextInfo(kind: .text, editable: true),
                selection: Fixtures.caret, item: "select", shown: false),
            // Select All
            Row(name: "select all at a caret", selection: Fixtures.caret, item: "select-all", shown: true),
            Row(name: "select all over a range", item: "select-all", shown: true),
            Row(name: "no select all when all is selected", selection: Selection(kind: .all, length: 9),
                item: "select-all", shown: false),
            Row(name: "no select all without content", context: ContextInfo(kind: .text, editable: true),
                selection: Fixtures.caret, item: "select-all", shown: false),
            // Format
            Row(name: "format a rich range", context: rich, item: "format", shown: true),
            Row(name: "no format in plain text", item: "format", shown: false),
            Row(name: "no format when read-only", context: ContextInfo(kind: .text, hasContent: true, richText: true),
                item: "format", shown: false),
            Row(name: "no format of an empty range", context: rich, selection: Selection(kind: .range, length: 0),
                item: "format", shown: false),
            // Look Up, Translate, Search Web, Share…
            Row(name: "look up with a provider", providers: [Fixtures.lookup], item: "lookup", shown: true),
            Row(name: "no look up without a provider", providers: [Fixtures.translate], item: "lookup", shown: false),
            Row(name: "no look up at a caret", selection: Fixtures.caret, providers: [Fixtures.lookup],
                item: "lookup", shown: false),
            Row(name: "translate with a provider", providers: [Fixtures.translate], item: "translate", shown: true),
            Row(name: "no translate without a provider", item: "translate", shown: false),
            Row(name: "no translate of an empty range", selection: Selection(kind: .range, length: 0),
                providers: [Fixtures.translate], item: "translate", shown: false),
            Row(name: "search web with a provider", providers: [Fixtures.searchWeb], item: "search-web", shown: true),
            Row(name: "no search web without a provider", providers: [Fixtures.share], item: "search-web", shown: false),
            Row(name: "share with a provider", providers: [Fixtures.share], item: "share", shown: true),
            Row(name: "no share without a share provider", providers: [Fixtures.translate], item: "share", shown: false),
            Row(name: "no translate where the provider takes other types",
                providers: [ProviderInfo(id: "t", title: "T", role: .translate, contentTypes: ["image/*"])],
                item: "translate", shown: false),
            // Other providers
            Row(name: "a matching provider's own item", providers: [Fixtures.upper],
                item: "provider:org.example.Upper", shown: true),
            Row(name: "no item of a provider that requires editable in read-only text", context: Fixtures.label,
                providers: [Fixtures.upper], item: "provider:org.example.Upper", shown: false),
            Row(name: "no item of a provider for other types",
                providers: [ProviderInfo(id: "img", title: "Enhance", contentTypes: ["image/png"])],
                item: "provider:img", shown: false),
            Row(name: "no provider item without a selection", selection: Fixtures.caret, providers: [Fixtures.upper],
                item: "provider:org.example.Upper", shown: false),
            Row(name: "no item of a provider that replaces text where the app cannot replace it",
                context: ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true,
                                     supportedCommands: [.copy, .cut, .paste]),
                providers: [Fixtures.upper], item: "provider:org.example.Upper", shown: false),
            Row(name: "a provider that replaces text where the app declares replace-selection",
                context: ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true,
                                     supportedCommands: [.copy, .replaceSelection]),
                providers: [Fixtures.upper], item: "provider:org.example.Upper", shown: true),
        ]
        for row in rows {
            let shown = compose(row).shownItems
            XCTAssertEqual(shown.contains(row.item), row.shown, "\(row.name): \(shown)")
        }
    }

    func testAFullMenuIsInGroupOrder() {
        let menu = EditMenu.compose(
            context: Fixtures.richField,
            selection: Selection(kind: .range, length: 5, attributes: [.italic], pasteboardTypes: ["text/html"]),
            undo: UndoSummary(canUndo: true, canRedo: true, undoActionName: "Typing", redoActionName: "Bold"),
            providers: [Fixtures.upper] + Fixtures.allRoles.reversed(),
            appItems: [Fixtures.action("define")])
        XCTAssertEqual(menu.ids, [
            "menubus:section:2", "menubus:undo", "menubus:redo", "menubus:cut", "menubus:copy", "menubus:paste", "menubus:paste-and-match-style",
            "menubus:delete", "menubus:select-all",
            "menubus:section:3", "menubus:format", "menubus:bold", "menubus:italic", "menubus:underline",
            // Five provider suggestions: the first three, then Services with the rest.
            "menubus:lookup", "menubus:translate", "menubus:search-web",
            "menubus:services", "menubus:share", "menubus:provider:org.example.Upper",
            "menubus:section:4", "define",
        ])
        XCTAssertEqual(menu.element("menubus:undo")?.title, "Undo Typing")
        XCTAssertEqual(menu.element("menubus:redo")?.title, "Redo Bold")
        XCTAssertEqual(menu.element("menubus:undo")?.parent, "menubus:section:2",
                       "with four groups, Undo joins the editing group: three sections at most")
        XCTAssertNoThrow(try ElementValidation.validate(menu, allowReserved: true))
    }

    func testSectionsAreInlineMenusAndItemsCarryTheirCommand() {
        let menu = compose(Row(name: "", undo: UndoSummary(canUndo: true), providers: [Fixtures.upper],
                               item: "", shown: true), appItems: [Fixtures.action("define")])
        for section in menu where section.id.hasPrefix("menubus:section:") {
            XCTAssertEqual(section.kind, .menu)
            XCTAssertEqual(section.options, [.inline])
            XCTAssertEqual(section.parent, "")
            XCTAssertNil(section.title)
        }
        let copy = menu.element("menubus:copy")
        XCTAssertEqual(copy?.command, .copy)
        XCTAssertEqual(copy?.title, "Copy")
        XCTAssertEqual(copy?.icon, "edit-copy")
        XCTAssertEqual(copy?.parent, "menubus:section:2")
        XCTAssertEqual(menu.element("menubus:undo")?.parent, "menubus:section:2")
        let provider = menu.element("menubus:provider:org.example.Upper")
        XCTAssertEqual(provider?.title, "Make Upper Case")
        XCTAssertNil(provider?.command)
        XCTAssertEqual(provider?.parent, "menubus:section:3")
        XCTAssertEqual(menu.element("define")?.parent, "menubus:section:4")
    }

    func testEmptyGroupsLeaveNoSection() {
        let menu = EditMenu.compose(context: ContextInfo(kind: .text), selection: Selection(), undo: nil,
                                    providers: [], appItems: [])
        XCTAssertEqual(menu, [])
        let onlyCopy = compose(Row(name: "", context: Fixtures.label, item: "", shown: true))
        XCTAssertEqual(onlyCopy.ids, ["menubus:section:2", "menubus:copy", "menubus:select-all"])
    }

    func testUndoTitleIsBareWhenTheStepHasNoName() {
        let menu = compose(Row(name: "", undo: UndoSummary(canUndo: true, canRedo: true), item: "", shown: true))
        XCTAssertEqual(menu.element("menubus:undo")?.title, "Undo")
        XCTAssertEqual(menu.element("menubus:redo")?.title, "Redo")
    }

    func testACommandTheAppDoesNotSupportNeverShows() {
        var context = Fixtures.richField
        context.supportedCommands = [.copy]
        let menu = EditMenu.compose(context: context,
                                    selection: Selection(kind: .range, length: 3, pasteboardTypes: ["text/html"]),
                                    undo: UndoSummary(canUndo: true, canRedo: true),
                                    providers: Fixtures.allRoles, appItems: [])
        XCTAssertEqual(menu.shownItems, ["copy"])
        for command in StandardCommand.allCases where command != .copy {
            var only = Fixtures.richField
            only.supportedCommands = Set(StandardCommand.allCases).subtracting([command])
            let shown = EditMenu.compose(context: only,
                                         selection: Selection(kind: .range, length: 3, pasteboardTypes: ["text/html"]),
                                         undo: UndoSummary(canUndo: true, canRedo: true),
                                         providers: Fixtures.allRoles, appItems: []).shownItems
            XCTAssertFalse(shown.contains(command.rawValue), "\(command)")
        }
    }

    func testFormatStatesFollowTheSelection() {
        let menu = EditMenu.compose(context: Fixtures.richField,
                                    selection: Selection(kind: .range, length: 2, attributes: [.bold, .underline]),
                                    undo: nil, providers: [], appItems: [])
        XCTAssertEqual(menu.element("menubus:format")?.kind, .menu)
        XCTAssertEqual(menu.element("menubus:format")?.title, "Format")
        XCTAssertEqual(menu.element("menubus:format")?.parent, "menubus:section:3")
        XCTAssertEqual(menu.element("menubus:bold")?.state, .on)
        XCTAssertEqual(menu.element("menubus:italic")?.state, .off)
        XCTAssertEqual(menu.element("menubus:underline")?.state, .on)
        XCTAssertEqual(menu.element("menubus:bold")?.parent, "menubus:format")
    }

    func testFormatShowsOnlySupportedStylesAndNotAtAllWithoutThem() {
        var context = Fixtures.richField
        context.supportedCommands = [.italic]
        let menu = EditMenu.compose(context: context, selection: Fixtures.range, undo: nil, providers: [], appItems: [])
        XCTAssertEqual(menu.shownItems, ["format", "italic"])
        context.supportedCommands = [.copy]
        XCTAssertFalse(EditMenu.compose(context: context, selection: Fixtures.range, undo: nil, providers: [],
                                        appItems: []).shownItems.contains("format"))
    }

    func testTheFirstMatchingProviderPerformsARole() {
        let other = ProviderInfo(id: "org.example.Other", title: "Other", role: .translate)
        let imageOnly = ProviderInfo(id: "org.example.Images", title: "Images", role: .translate, contentTypes: ["image/*"])
        let providers = [imageOnly, Fixtures.translate, other]
        XCTAssertEqual(EditMenu.provider(for: .translate, context: Fixtures.textField, providers: providers)?.id,
                       "org.example.Translate")
        XCTAssertNil(EditMenu.provider(for: .share, context: Fixtures.textField, providers: providers))
        let menu = compose(Row(name: "", providers: providers, item: "", shown: true))
        XCTAssertEqual(menu.shownItems.filter { $0 == "translate" }.count, 1, "one item per role")
    }

    func testARoleItemBorrowsTheProviderIconOnlyWhereTheCommandHasNone() {
        let translate = ProviderInfo(id: "t", title: "T", icon: "translator", role: .translate)
        let search = ProviderInfo(id: "s", title: "S", icon: "search-engine", role: .searchWeb)
        let menu = compose(Row(name: "", providers: [translate, search], item: "", shown: true))
        XCTAssertEqual(menu.element("menubus:translate")?.icon, "translator")
        XCTAssertEqual(menu.element("menubus:translate")?.title, "Translate")
        XCTAssertEqual(menu.element("menubus:search-web")?.icon, "system-search")
    }

    func testAppItemsComeAfterEverySystemItemAndHiddenOnesGo() {
        let menu = compose(Row(name: "", providers: [Fixtures.upper], item: "", shown: true), appItems: [
            Fixtures.action("define"),
            Fixtures.action("secret", attributes: [.hidden]),
            Fixtures.submenu("more"),
            Fixtures.action("spell", parent: "more"),
        ])
        let ids = menu.ids
        guard let section = ids.firstIndex(of: "menubus:section:4") else { return XCTFail("\(ids)") }
        XCTAssertTrue(ids[..<section].allSatisfy { $0.hasPrefix("menubus:") })
        XCTAssertEqual(Array(ids[section...]), ["menubus:section:4", "define", "more", "spell"])
        XCTAssertEqual(menu.element("more")?.parent, "menubus:section:4")
        XCTAssertEqual(menu.element("spell")?.parent, "more")
    }

    func testComposedMenusAreValid() {
        let contexts = [Fixtures.textField, Fixtures.richField, Fixtures.label, Fixtures.photo]
        let selections = [Selection(), Fixtures.caret, Fixtures.range,
                          Selection(kind: .all, length: 3, attributes: [.bold], pasteboardTypes: ["text/html"])]
        for context in contexts {
            for selection in selections {
                let menu = EditMenu.compose(context: context, selection: selection,
                                            undo: UndoSummary(canUndo: true, undoActionName: "Typing"),
                                            providers: Fixtures.allRoles + [Fixtures.upper],
                                            appItems: [Fixtures.action("define")])
                XCTAssertNoThrow(try ElementValidation.validate(menu, allowReserved: true))
            }
        }
    }

    func testTheBenchmarkWorkloadComposes() {
        XCTAssertEqual(CompositionBenchmark.run(.edit, itemCount: 0, iterations: 1), 19)
        XCTAssertGreaterThan(CompositionBenchmark.run(itemCount: 50, iterations: 2), 0)
        let workload = CompositionBenchmark.Workload(itemCount: 50)
        XCTAssertNoThrow(try ElementValidation.validate(workload.items))
    }
}
