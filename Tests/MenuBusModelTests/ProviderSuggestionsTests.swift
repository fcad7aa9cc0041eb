import XCTest
@testable import MenuBusModel
import MenuBusModelFixtures

/// Provider suggestions: a few at the menu's level, chosen by how often this
/// user chose them, the rest in one Services submenu, never past the limits.
final class ProviderSuggestionsTests: XCTestCase {
    /// The providers MenuBus ships, in the catalog's order.
    static let shipped: [ProviderInfo] = [
        ProviderInfo(id: "org.menubus.SearchWeb", title: "Search Web", icon: "edit-find", role: .searchWeb),
        transform("Capitalize", "Capitalize"),
        transform("Lowercase", "Make Lowercase"),
        transform("SortLines", "Sort Lines"),
        transform("Uppercase", "Make Uppercase"),
        ProviderInfo(id: "org.menubus.Translate", title: "Translate", icon: "accessories-dictionary", role: .translate,
                     returnsText: true),
    ]

    static func transform(_ name: String, _ title: String) -> ProviderInfo {
        ProviderInfo(id: "org.menubus.TextTransforms." + name, title: title, icon: "format-text-" + name.lowercased(),
                     returnsText: true, requiresEditable: true)
    }

    private let note = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)
    private let selection = Selection(kind: .range, length: 4, text: "note")
    private let pin = [Fixtures.action("pin", title: "Pin Note")]

    private func contextMenu(usage: [String: Int] = [:], items: [MenuElement]? = nil) -> [MenuElement] {
        ContextMenu.compose(context: note, items: items ?? pin, providers: Self.shipped, selection: selection, usage: usage)
    }

    /// Titles at the top level (through inline sections), and under Services.
    private func levels(_ menu: [MenuElement]) -> (top: [String], services: [String]) {
        let sections = Set(menu.filter(\.isSection).map(\.id))
        let top = menu.filter { ($0.parent.isEmpty || sections.contains($0.parent)) && !$0.isSection }.compactMap(\.title)
        let services = menu.filter { $0.parent == ElementID.services }.compactMap(\.title)
        return (top, services)
    }

    func testOneAppItemGetsAFewSuggestionsAndTheRestInServices() {
        let (top, services) = levels(contextMenu())
        XCTAssertEqual(top, ["Pin Note", "Copy", "Translate", "Search Web", "Capitalize", "Services"])
        XCTAssertEqual(services, ["Make Lowercase", "Sort Lines", "Make Uppercase"])
    }

    func testTheFewAreTheMostChosenInAStableOrder() {
        let usage = ["org.menubus.TextTransforms.Uppercase": 2]
        let (top, services) = levels(contextMenu(usage: usage))
        XCTAssertEqual(top, ["Pin Note", "Copy", "Translate", "Search Web", "Make Uppercase", "Services"],
                       "chosen twice, Make Uppercase is among the few, in its place in the order")
        XCTAssertEqual(services, ["Capitalize", "Make Lowercase", "Sort Lines"])

        // More choices of one of the few do not move the others.
        let more = ["org.menubus.TextTransforms.Uppercase": 9, "org.menubus.Translate": 1]
        XCTAssertEqual(levels(contextMenu(usage: more)).top, top)
        // The same inputs, the same menu, every time.
        XCTAssertEqual(contextMenu(usage: usage), contextMenu(usage: usage))
    }

    func testOneLeftOverShowsAsItselfNotAsASubmenu() {
        let four = Array(Self.shipped.prefix(3)) + [Self.shipped[5]]
        let menu = ContextMenu.compose(context: note, items: pin, providers: four, selection: selection)
        XCTAssertEqual(levels(menu).top, ["Pin Note", "Copy", "Translate", "Search Web", "Capitalize", "Make Lowercase"])
        XCTAssertFalse(menu.ids.contains(ElementID.services))
    }

    func testTheEditMenuGathersTheSameWay() {
        let menu = EditMenu.compose(context: note, selection: selection, undo: nil, providers: Self.shipped, appItems: [],
                                    usage: ["org.menubus.TextTransforms.SortLines": 1])
        let group = menu.filter { $0.parent == ElementID.section(3) }.compactMap(\.title)
        XCTAssertEqual(group, ["Translate", "Search Web", "Sort Lines", "Services"])
        XCTAssertEqual(levels(menu).services, ["Capitalize", "Make Lowercase", "Make Uppercase"])
        XCTAssertEqual(menu.first { $0.id == ElementID.services }?.kind, .menu)
    }

    /// A provider's shortcut shows beside its item in an edit menu, at the
    /// top or under Services, and beside a role's item that has no key of
    /// its own; context menus show no shortcuts.
    func testEditMenusShowProvidersShortcuts() {
        var providers = Self.shipped
        providers[4].shortcut = "<Control><Alt>u"  // Make Uppercase, under Services
        providers[5].shortcut = "<Control><Alt>t"  // Translate, a role
        let edit = EditMenu.compose(context: note, selection: selection, undo: nil, providers: providers, appItems: [])
        let shortcuts = Dictionary(edit.compactMap { element in element.shortcut.map { (element.title ?? "", $0) } },
                                   uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(shortcuts["Make Uppercase"], "<Control><Alt>u")
        XCTAssertEqual(shortcuts["Translate"], "<Control><Alt>t")
        XCTAssertNil(shortcuts["Capitalize"])
        XCTAssertEqual(shortcuts["Copy"], "<Control>c", "a command's own key stays")
        let context = ContextMenu.compose(context: note, items: pin, providers: providers, selection: selection)
        XCTAssertEqual(context.compactMap(\.shortcut), [])
    }

    func testTheServicesTitleFollowsTheLanguage() {
        let german = SystemTitles(translations: ["Services": "Dienste"], rightToLeft: false)
        let menu = ContextMenu.compose(context: note, items: pin, providers: Self.shipped, selection: selection, titles: german)
        XCTAssertEqual(menu.first { $0.id == ElementID.services }?.title, "Dienste")
    }

    func testAnAppItemTitledServicesKeepsTheFewOnly() {
        let items = pin + [Fixtures.action("services", title: "Services")]
        let menu = contextMenu(items: items)
        XCTAssertFalse(menu.ids.contains(ElementID.services))
        XCTAssertEqual(levels(menu).top, ["Pin Note", "Services", "Copy", "Translate", "Search Web", "Capitalize"])
    }

    func testAdditionsNeverTakeALevelPastTheItemLimit() {
        for count in [10, 12, 13, 14, 15, 20] {
            let items = (1...count).map { Fixtures.action("i\($0)", title: "Do \($0)") }
            let menu = contextMenu(items: items)
            let (top, services) = levels(menu)
            XCTAssertLessThanOrEqual(top.count, max(count, Lint.maxItemsPerLevel), "\(count) app items: \(top)")
            if count >= Lint.maxItemsPerLevel {
                XCTAssertEqual(top.count, count, "no room: the app's excess is not made worse")
            }
            // Every provider the top level has no room for is in Services.
            if count <= 13 {
                XCTAssertEqual(top.count + services.count, count + 1 + Self.shipped.count + (services.isEmpty ? 0 : 1))
            }
        }
    }

    /// `count` providers of their own items, as a catalog lists them, then
    /// one registered at run time, which comes last in the stable order.
    private static func many(_ count: Int) -> [ProviderInfo] {
        Self.shipped + (Self.shipped.count..<count).map {
            ProviderInfo(id: "org.example.P\($0)", title: "Do \($0)", contentTypes: ["text/plain"])
        } + [ProviderInfo(id: "org.example.Registered", title: "Make Registered", contentTypes: ["text/plain"])]
    }

    func testEveryMatchingProviderIsOfferedAtTheTopOrInServices() {
        for count in [20, 40] {
            let providers = Self.many(count)
            let menus = [
                ContextMenu.compose(context: note, items: pin, providers: providers, selection: selection),
                EditMenu.compose(context: note, selection: selection, undo: nil, providers: providers, appItems: pin),
            ]
            for (kind, menu) in zip([MenuKind.context, .edit], menus) {
                let (top, services) = levels(menu)
                XCTAssertEqual(Set(top + services).intersection(providers.map(\.title)).count, providers.count,
                               "\(count) + 1 providers, \(kind) menu: every one is offered")
                XCTAssertEqual(top.filter { $0 != "Services" }.count + services.count,
                               top.count - 1 + providers.count - ProviderSuggestions.shownAtTop,
                               "each once")
                XCTAssertLessThanOrEqual(ProviderSuggestions.levelCount(menu), Lint.maxItemsPerLevel)
                XCTAssertEqual(Lint.check(kind: kind, elements: menu, composed: true).filter { $0.severity != .info }, [],
                               "\(kind) menu: at most three groups and fifteen items at the top")
            }
        }
    }

    func testServicesIsRankedByUseAndARegisteredProviderTakesItsPlace() {
        let providers = Self.many(20)
        // Chosen most, the registered one is among the few; the next most chosen lead Services.
        let usage = ["org.example.Registered": 9, "org.menubus.Translate": 8, "org.menubus.SearchWeb": 7,
                     "org.example.P19": 3, "org.example.P7": 2]
        let (top, services) = levels(ContextMenu.compose(context: note, items: pin, providers: providers,
                                                          selection: selection, usage: usage))
        XCTAssertEqual(top, ["Pin Note", "Copy", "Translate", "Search Web", "Make Registered", "Services"])
        XCTAssertEqual(Array(services.prefix(4)), ["Do 19", "Do 7", "Capitalize", "Make Lowercase"],
                       "most chosen first, then the stable order")
        XCTAssertEqual(services.count, providers.count - 3)
        // Never chosen, the registered one is still offered, last.
        XCTAssertEqual(levels(ContextMenu.compose(context: note, items: pin, providers: providers,
                                                  selection: selection)).services.last, "Make Registered")
    }

    func testExcessReportsTheSizeRulesOnly() {
        let twenty = (1...20).map { Fixtures.action("i\($0)", title: "do \($0)") }
        XCTAssertEqual(Lint.excess(twenty).map(\.elementId), [""])
        XCTAssertTrue(Lint.excess(twenty)[0].message.contains("20 items"))
        let sections = (1...5).flatMap { [Fixtures.section("s\($0)"), Fixtures.action("a\($0)", parent: "s\($0)", title: "Do \($0)")] }
        XCTAssertTrue(Lint.excess(sections).contains { $0.message.contains("5 sections") })
        XCTAssertEqual(Lint.excess(pin), [])
        // A submenu of its own, too many items in it.
        let submenu = [Fixtures.submenu("more", title: "More")]
            + (1...16).map { Fixtures.action("m\($0)", parent: "more", title: "Do \($0)") }
        XCTAssertEqual(Lint.excess(submenu).map(\.elementId), ["more"])
    }
}
