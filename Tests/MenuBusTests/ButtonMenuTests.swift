import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusProtocol

/// Menus on buttons through the real menubusd: a toolbar button's menu
/// (press and hold), its primary action (a tap, `ActivatePrimaryAction` or
/// `Activate` of `menubus:primary-action`), and a back button's history,
/// filled by a deferred element at every presentation.
final class ButtonMenuTests: BusTestCase {
    override func setUpWithError() throws {
        _ = try startDaemon()
    }

    /// A "New" button: a tap makes a document, press and hold offers kinds.
    private let newButton = ContextInfo(kind: .button, title: "New", primaryAction: "new-document")
    private let newItems = [
        MenuElement(id: "new-document", title: "New Document", attributes: [.hidden]),
        MenuElement(id: "new-folder", title: "New Folder"),
        MenuElement(id: "new-window", title: "New Window"),
    ]


    func testAButtonsMenuIsTheAppsItemsAloneWhicheverKindIsAsked() throws {
        let app = try app("org.example.Files")
        try app.publishContext("new", newButton, items: newItems)
        let presenter = try client()
        for kind in MenuKind.allCases {
            let menu = try presenter.present(owner: "org.example.Files", contextId: "new", kind: kind)
            XCTAssertEqual(try presenter.layout(of: menu).elements.map(\.id), ["new-folder", "new-window"],
                           "\(kind): no suggestions, no edit commands, the hidden primary item stays out")
            try presenter.dismiss(menu)
        }
        XCTAssertEqual(try app.publishedContext(contextId: "new").context.primaryAction, "new-document")
    }

    func testATapRunsThePrimaryActionWithNoMenuPresented() throws {
        let app = try app("org.example.Files")
        var actions: [ActionInvocation] = []
        app.onAction = { actions.append($0) }
        try app.publishContext("new", newButton, items: newItems)
        let toolbar = try client()
        try toolbar.activatePrimaryAction(owner: "org.example.Files", contextId: "new",
                                          platformData: ["activation-token": .string("t1")])
        XCTAssertTrue(pumpClients([app], timeout: 10) { !actions.isEmpty })
        XCTAssertEqual(actions.map(\.itemId), ["new-document"])
        XCTAssertEqual(actions.first?.contextId, "new")
        XCTAssertEqual(actions.first?.platformData["activation-token"], .string("t1"))
    }

    func testActivatingTheReservedIdInThePresentedMenuRunsThePrimaryActionAndCloses() throws {
        let app = try app("org.example.Files")
        var actions: [String] = []
        app.onAction = { actions.append($0.itemId) }
        try app.publishContext("new", newButton, items: newItems)
        let toolbar = try client()
        let menu = try toolbar.present(owner: "org.example.Files", contextId: "new", kind: .context)
        try toolbar.activate(menu, itemId: ElementID.primaryAction)
        XCTAssertTrue(pumpClients([app], timeout: 10) { !actions.isEmpty })
        XCTAssertEqual(actions, ["new-document"])
        XCTAssertTrue(eventually { (try? toolbar.layout(of: menu)) == nil }, "the menu closed")
    }

    func testWhatHasNoPrimaryActionSaysSo() throws {
        let app = try app("org.example.Files")
        let toolbar = try client()
        try app.publishContext("sort", ContextInfo(kind: .button, menuIsPrimaryAction: true), items: newItems)
        try app.publishContext("plain", ContextInfo(kind: .button), items: newItems)
        try app.publishContext("row", ContextInfo(kind: .file), items: newItems)
        for (contextId, words) in [("sort", "menu-is-primary-action"), ("plain", "no primary-action"), ("row", "only a button")] {
            let error = assertBusError(BusError.Domain.noSuchItem.errorName) {
                try toolbar.activatePrimaryAction(owner: "org.example.Files", contextId: contextId)
            }
            XCTAssertTrue(error?.message.hasPrefix("contextId:") ?? false, error?.message ?? "")
            XCTAssertTrue(error?.message.contains(words) ?? false, error?.message ?? "")
        }
        let menu = try toolbar.present(owner: "org.example.Files", contextId: "sort", kind: .context)
        assertBusError(BusError.Domain.noSuchItem.errorName) { try toolbar.activate(menu, itemId: ElementID.primaryAction) }
        // Items replaced without the primary one: a tap finds nothing.
        try app.publishContext("new", newButton, items: newItems)
        _ = try app.updateItems("new", Array(newItems.dropFirst()))
        assertBusError(BusError.Domain.noSuchItem.errorName) {
            try toolbar.activatePrimaryAction(owner: "org.example.Files", contextId: "new")
        }
        var disabled = newItems
        disabled[0].attributes = [.hidden, .disabled]
        try app.publishContext("new", newButton, items: disabled)
        assertBusError(BusError.Standard.invalidArgs) {
            try toolbar.activatePrimaryAction(owner: "org.example.Files", contextId: "new")
        }
    }

    func testBadButtonKeysAreRefusedNamingTheKey() throws {
        let app = try app("org.example.Files")
        let cases: [(String, ContextInfo, String)] = [
            ("a primary action on a text field", ContextInfo(kind: .text, primaryAction: "new-document"), "context.primary-action:"),
            ("no such item", ContextInfo(kind: .button, primaryAction: "print"), "context.primary-action:"),
            ("both", ContextInfo(kind: .button, primaryAction: "new-document", menuIsPrimaryAction: true), "context.primary-action:"),
            ("menu as primary action on a file", ContextInfo(kind: .file, menuIsPrimaryAction: true), "context.menu-is-primary-action:"),
            ("a bad id", ContextInfo(kind: .button, primaryAction: "new document"), "context.primary-action:"),
        ]
        for (what, context, field) in cases {
            let error = assertBusError(BusError.Standard.invalidArgs) { try app.publishContext("new", context, items: newItems) }
            XCTAssertTrue(error?.message.hasPrefix(field) ?? false, "\(what): \(error?.message ?? "")")
        }
    }

    func testAHistoryMenuListsVisitedPlacesMostRecentFirstAskedAtEveryPresentation() throws {
        let app = try app("org.example.Browser")
        var visited = ["Home", "News", "Weather"]
        var asked = 0
        app.provideElements = { _, _ in
            asked += 1
            // Most recent first, as the app keeps its back list.
            return visited.reversed().enumerated().map { MenuElement(id: "place-\($0.offset)", title: $0.element) }
        }
        var actions: [String] = []
        app.onAction = { actions.append($0.itemId) }
        // A cached deferred element: a history context asks anyway, every time.
        try app.publishContext("back", ContextInfo(kind: .history, title: "Back", primaryAction: "go-back"), items: [
            MenuElement(id: "go-back", title: "Back", attributes: [.hidden]),
            MenuElement(id: "places", kind: .deferred),
        ])
        let toolbar = try client()
        func titles(_ menu: PresentedMenu) throws -> [String] {
            try toolbar.layout(of: menu).elements.compactMap(\.title)
        }
        let first = try toolbar.present(owner: "org.example.Browser", contextId: "back", kind: .context)
        XCTAssertTrue(pumpClients([app], timeout: 10) { (try? titles(first)) == ["Weather", "News", "Home"] })
        try toolbar.activate(first, itemId: "place-1")
        XCTAssertTrue(pumpClients([app], timeout: 10) { actions == ["place-1"] })

        visited.append("Sports")
        let second = try toolbar.present(owner: "org.example.Browser", contextId: "back", kind: .context)
        XCTAssertTrue(pumpClients([app], timeout: 10) { (try? titles(second)) == ["Sports", "Weather", "News", "Home"] },
                      "asked again, not the first answer cached")
        XCTAssertEqual(asked, 2)
        try toolbar.activatePrimaryAction(owner: "org.example.Browser", contextId: "back")
        XCTAssertTrue(pumpClients([app], timeout: 10) { actions == ["place-1", "go-back"] })
    }
}

/// The button rules alone, without a daemon.
final class ButtonMenuRuleTests: XCTestCase {
    func testAHistorysDeferredElementsAreNeverCachedAndAButtonGetsNoSuggestions() {
        let items = [MenuElement(id: "places", kind: .deferred), MenuElement(id: "clear", title: "Clear History")]
        let history = ButtonMenu.compose(context: ContextInfo(kind: .history), items: items)
        XCTAssertEqual(history.map(\.cached), [false, true])
        let button = ContextInfo(kind: .button, supportedCommands: [.copy, .share])
        let copyable = [ProviderInfo(id: "org.example.Share", title: "Share", role: .share, contentTypes: ["*/*"])]
        XCTAssertEqual(ContextMenu.compose(context: button, items: items, providers: copyable).map(\.id), ["places", "clear"])
        XCTAssertEqual(EditMenu.compose(context: button, selection: Selection(kind: .all, length: 3), undo: nil,
                                        providers: copyable, appItems: items).map(\.id), ["places", "clear"])
    }

    func testAPrimaryActionMustNameAnActionAmongTheItems() {
        let items = [MenuElement(id: "go", title: "Go", attributes: [.hidden]), MenuElement(id: "sub", kind: .menu, title: "Sub")]
        XCTAssertNoThrow(try ButtonMenu.validate(context: ContextInfo(kind: .button, primaryAction: "go"), items: items))
        XCTAssertThrowsError(try ButtonMenu.validate(context: ContextInfo(kind: .button, primaryAction: "sub"), items: items))
        XCTAssertEqual(ButtonMenu.primaryItem(context: ContextInfo(kind: .button, primaryAction: "go"), items: items)?.id, "go")
    }
}
