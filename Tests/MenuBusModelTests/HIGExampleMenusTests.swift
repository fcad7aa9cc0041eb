import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

/// The HIG's own example menus (a photo, a file, a link, selected text, a
/// Mail message), and the menus of the review this project was held to,
/// through both compositions with many providers: the daemon never leaves a
/// finding the app's items did not have, and what it adds stays within
/// three groups and the item limit.
final class HIGExampleMenusTests: XCTestCase {
    private struct Example {
        let name: String
        let context: ContextInfo
        var selection = Selection()
        let items: [MenuElement]
    }

    private static func withURIs(_ uris: [String]) -> Selection {
        var selection = Selection()
        selection.uris = uris
        return selection
    }

    /// Five sections of four, three in the last; the first item "Open".
    private static func excessItems() -> [MenuElement] {
        var items: [MenuElement] = []
        for section in 1...5 {
            items.append(Fixtures.section("s\(section)"))
            for item in 1...(section == 5 ? 3 : 4) {
                let title = section == 1 && item == 1 ? "Open" : "Do \(section) \(item)"
                items.append(Fixtures.action("i\(section)-\(item)", parent: "s\(section)", title: title))
            }
        }
        return items
    }

    private static func destructive(_ id: String, _ title: String) -> MenuElement {
        Fixtures.action(id, title: title, attributes: [.destructive])
    }

    private static let examples: [Example] = [
        Example(name: "photo", context: Fixtures.photo,
                items: [Fixtures.action("favorite", title: "Favorite"), Fixtures.action("duplicate", title: "Duplicate"),
                        Fixtures.action("hide", title: "Hide"), Fixtures.action("add-to-album", title: "Add to Album"),
                        destructive("delete", "Delete")]),
        Example(name: "file", context: ContextInfo(kind: .file, contentTypes: ["application/pdf"]),
                selection: withURIs(["file:///home/me/Report.pdf"]),
                items: [Fixtures.section("info"), Fixtures.action("get-info", parent: "info", title: "Get Info"),
                        Fixtures.action("rename", parent: "info", title: "Rename"),
                        Fixtures.section("copies"), Fixtures.action("compress", parent: "copies", title: "Compress"),
                        Fixtures.action("duplicate", parent: "copies", title: "Duplicate"),
                        destructive("trash", "Move to Trash")]),
        Example(name: "link", context: ContextInfo(kind: .url, contentTypes: ["text/uri-list"]),
                selection: withURIs(["https://example.org/"]),
                items: [Fixtures.action("new-tab", title: "Open in New Tab"),
                        Fixtures.action("new-window", title: "Open in New Window"),
                        Fixtures.action("download", title: "Download Linked File"),
                        Fixtures.action("reading-list", title: "Add to Reading List")]),
        Example(name: "selected text", context: Fixtures.richField,
                selection: Selection(kind: .range, length: 5, text: "hello", pasteboardTypes: ["text/plain"]),
                items: [Fixtures.action("add-link", title: "Add Link"), Fixtures.action("comment", title: "Add Comment")]),
        Example(name: "Mail message", context: ContextInfo(kind: .item, contentTypes: ["message/rfc822"]),
                items: [Fixtures.action("reply", title: "Reply"), Fixtures.action("reply-all", title: "Reply All"),
                        Fixtures.action("forward", title: "Forward"), Fixtures.submenu("move", title: "Move to"),
                        Fixtures.action("inbox", parent: "move", title: "Inbox"),
                        Fixtures.action("archive", parent: "move", title: "Archive"),
                        destructive("delete", "Delete")]),
        Example(name: "one app item in an editable note", context: Fixtures.textField,
                selection: Selection(kind: .range, length: 4, text: "note"),
                items: [Fixtures.action("pin", title: "Pin Note")]),
        Example(name: "an app's own excess: five sections, nineteen items, an Open item", context: Fixtures.photo,
                items: excessItems()),
        Example(name: "fourteen items", context: Fixtures.textField, selection: Selection(kind: .all, length: 9, text: "fourteen!"),
                items: (1...14).map { Fixtures.action("i\($0)", title: "Do \($0)") }),
    ]

    /// The shipped providers, every role, and a dozen more that take anything.
    private static let providerSets: [[ProviderInfo]] = [
        [],
        ProviderSuggestionsTests.shipped,
        ProviderSuggestionsTests.shipped + Fixtures.allRoles.map { role in
            var any = role
            any.contentTypes = ["*/*"]
            return any
        } + (1...12).map { ProviderInfo(id: "org.example.Any\($0)", title: "Send to Place \($0)", contentTypes: ["*/*"]) },
    ]

    private static let usages: [[String: Int]] = [
        [:], ["org.menubus.TextTransforms.Uppercase": 2, "org.example.Any12": 5, "org.example.Share": 1],
    ]

    /// Sections at the top level, as `Lint` counts them.
    private func sections(_ menu: [MenuElement]) -> Int {
        ContextMenu.sectionCount(menu.filter { $0.parent.isEmpty && !$0.has(.hidden) }.map(\.isSection))
    }

    /// `menu` has no finding beyond `appFindings`, no more sections and items
    /// at its level than three, fifteen or what it had `before` MenuBus's
    /// additions (the Services submenu holds every other provider, as
    /// `ProviderSuggestionsTests` checks).
    private func assertWithinLimits(_ menu: [MenuElement], kind: MenuKind, before: [MenuElement],
                                    appFindings: Set<FindingKey>, _ name: String) {
        let added = Set(Lint.check(kind: kind, elements: menu, composed: true).map(FindingKey.init)).subtracting(appFindings)
        XCTAssertEqual(added, [], "\(name): \(menu.ids)")
        XCTAssertLessThanOrEqual(sections(menu), max(3, sections(before)), name)
        XCTAssertLessThanOrEqual(ProviderSuggestions.levelCount(menu),
                                 max(Lint.maxItemsPerLevel, ProviderSuggestions.levelCount(before)), "\(name): \(menu.ids)")
    }

    func testNoExampleLeavesANewFindingAndAdditionsStayWithinTheLimits() {
        for example in Self.examples {
            let appFindings = Set(Lint.check(kind: .context, elements: example.items).map(FindingKey.init))
            let editAppFindings = Set(Lint.check(kind: .edit, elements: example.items).map(FindingKey.init)).union(appFindings)
            let arranged = AppItems.arranged(example.items)
            let plain = EditMenu.compose(context: example.context, selection: example.selection, undo: nil,
                                         providers: [], appItems: example.items)
            for providers in Self.providerSets {
                for usage in Self.usages {
                    let name = "\(example.name), \(providers.count) providers, usage \(usage)"
                    let menu = ContextMenu.compose(context: example.context, items: example.items, providers: providers,
                                                   selection: example.selection, usage: usage)
                    assertWithinLimits(menu, kind: .context, before: arranged, appFindings: appFindings, "context menu, \(name)")

                    let edit = EditMenu.compose(context: example.context, selection: example.selection, undo: nil,
                                                providers: providers, appItems: example.items, usage: usage)
                    assertWithinLimits(edit, kind: .edit, before: plain, appFindings: editAppFindings, "edit menu, \(name)")
                    let suggested = edit.filter {
                        $0.parent == ElementID.section(3) && $0.id != ElementID.format
                    }.count
                    XCTAssertLessThanOrEqual(suggested, ProviderSuggestions.shownAtTop + 1, "edit menu, \(name)")
                }
            }
        }
    }

    func testTheAppsOwnExcessIsReportedNotRepaired() {
        let excess = Self.examples.first { $0.name.hasPrefix("an app's own excess") }!
        let menu = ContextMenu.compose(context: excess.context, items: excess.items, providers: ProviderSuggestionsTests.shipped)
        XCTAssertEqual(menu.filter { !ElementID.isReserved($0.id) }, AppItems.arranged(excess.items),
                       "the app's items are served as published")
        XCTAssertFalse(menu.contains { ElementID.isReserved($0.id) }, "no room: nothing is added to a level past the limit")
        let findings = Lint.excess(excess.items)
        XCTAssertTrue(findings.contains { $0.message.contains("5 sections") }, "\(findings)")
        XCTAssertTrue(findings.contains { $0.message.contains("19 items") }, "\(findings)")
    }
}
