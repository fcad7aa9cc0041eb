import Foundation
import XCTest
@testable import MenuBus
@testable import MenuBusService
@testable import MenuBusProtocol
@testable import MenuBusProviders
@testable import MenuBusDBus
@testable import MenuBusModel
@testable import MenuBusUndo
@testable import MenuBusSupport

/// Deferred elements, menus that update while open, and providers, with the
/// real menubusd and several client connections pumped on this thread.
final class LiveMenuTests: BusTestCase {
    private var daemon: RunningProcess!

    override func setUpWithError() throws {
        daemon = try startDaemon(["--deferred-timeout", "0.5"])
    }

    /// Pumps every client in turn until `done()` or `timeout` seconds.
    @discardableResult
    private func pump(_ clients: [MenuBusClient], timeout: Double = 5, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            for client in clients { client.run(until: done, timeout: 0.005) }
        }
        return done()
    }

    private let field = ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: true, hasContent: true)

    // MARK: Deferred elements

    func testDeferredElementIsFilledInPlaceAndLoadingGoes() throws {
        let app = try app()
        var asked: [String] = []
        app.provideElements = { _, elementId in
            asked.append(elementId)
            return [MenuElement(id: "recent-1", title: "Recent One"), MenuElement(id: "recent-2", title: "Recent Two")]
        }
        try app.publishContext("row", ContextInfo(kind: .file), items: [
            MenuElement(id: "open", title: "Open With"),
            MenuElement(id: "recents", kind: .deferred),
            MenuElement(id: "rename", title: "Rename"),
        ])
        let presenter = try client()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "row", kind: .context)
        let first = try presenter.layout(of: menu)
        let loading = try XCTUnwrap(first.element("recents"))
        XCTAssertEqual(loading.title, "Loading…")
        XCTAssertTrue(loading.attributes.contains(.disabled))
        XCTAssertTrue(pump([app, presenter]) { !layouts.isEmpty })
        XCTAssertEqual(asked, ["recents"])
        let filled = try XCTUnwrap(layouts.last)
        let appIds = filled.elements.map(\.id).filter { !$0.hasPrefix("menubus:") }
        XCTAssertEqual(appIds, ["open", "recent-1", "recent-2", "rename"])
        XCTAssertNil(filled.element("recents"), "the Loading item is gone")
        XCTAssertGreaterThan(filled.revision, first.revision)
        XCTAssertEqual(try presenter.layout(of: menu), filled)
    }

    func testCachedElementIsAskedOnceOverTwoPresentationsAndUncachedEveryTime() throws {
        let app = try app()
        var asked: [String] = []
        app.provideElements = { _, elementId in
            asked.append(elementId)
            return [MenuElement(id: "\(elementId)-content-\(asked.count)", title: "Content")]
        }
        try app.publishContext("row", ContextInfo(kind: .file), items: [
            MenuElement(id: "kept", kind: .deferred),
            MenuElement(id: "fresh", kind: .deferred, cached: false),
        ])
        let presenter = try client()
        var layouts = 0
        try presenter.observeMenus { _, _ in layouts += 1 }
        for round in 1...2 {
            let menu = try presenter.present(owner: "org.example.Editor", contextId: "row", kind: .context)
            XCTAssertTrue(pump([app, presenter]) {
                ((try? presenter.layout(of: menu).elements.contains { $0.title == "Loading…" }) ?? true) == false
            }, "round \(round)")
            try presenter.dismiss(menu)
        }
        XCTAssertEqual(asked.filter { $0 == "kept" }.count, 1, "cached: asked once")
        XCTAssertEqual(asked.filter { $0 == "fresh" }.count, 2, "uncached: asked every time")
    }

    func testDeferredElementDisappearsWhenTheAppNeverAnswers() throws {
        let hung = try app("org.example.Hung")
        hung.provideElements = { _, _ in [MenuElement(id: "late", title: "Late")] }
        try hung.publishContext("row", ContextInfo(kind: .file), items: [
            MenuElement(id: "rename", title: "Rename"), MenuElement(id: "slow", kind: .deferred),
        ])
        let presenter = try client()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: "org.example.Hung", contextId: "row", kind: .context)
        XCTAssertNotNil(try presenter.layout(of: menu).element("slow"))
        // The app never pumps its connection: the daemon gives up after 0.5 s.
        XCTAssertTrue(presenter.run(until: { !layouts.isEmpty }, timeout: 5))
        XCTAssertNil(layouts.last?.element("slow"))
        XCTAssertNotNil(layouts.last?.element("rename"))
        // The app wakes up and answers late: the answer is dropped, the element stays gone.
        var answered = false
        hung.provideElements = { _, _ in
            answered = true
            return [MenuElement(id: "late", title: "Late")]
        }
        XCTAssertTrue(pump([hung, presenter]) { answered })
        pump([hung, presenter], timeout: 0.3) { false }
        let final = try presenter.layout(of: menu)
        XCTAssertNil(final.element("late"))
        XCTAssertNil(final.element("slow"))
    }

    func testBadProvidedElementsMakeTheElementDisappear() throws {
        let app = try app()
        app.provideElements = { _, _ in [MenuElement(id: "orphan", parent: "nowhere", title: "Orphan")] }
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "d", kind: .deferred)])
        let presenter = try client()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        _ = try presenter.present(owner: "org.example.Editor", contextId: "row", kind: .context)
        XCTAssertTrue(pump([app, presenter]) { !layouts.isEmpty })
        XCTAssertNil(layouts.last?.element("d"))
        XCTAssertNil(layouts.last?.element("orphan"))
    }

    // MARK: Live updates

    func testBurstOfSelectionUpdatesCoalescesAndEndsOnTheRightMenu() throws {
        let app = try app()
        try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .caret))
        let presenter = try client()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        for index in 0..<1000 {
            let selection = index % 2 == 0 ? Selection(kind: .range, length: UInt32(index + 1)) : Selection(kind: .caret)
            try app.updateSelection("f", selection)
        }
        try app.updateSelection("f", Selection(kind: .range, length: 5))
        XCTAssertTrue(presenter.run(until: { layouts.last?.element("menubus:copy") != nil }, timeout: 5))
        presenter.run(until: { false }, timeout: 0.1)
        XCTAssertNotNil(layouts.last?.element("menubus:cut"), "the last state is delivered")
        XCTAssertLessThan(layouts.count, 200, "1,001 updates coalesce into few signals (\(layouts.count))")
        XCTAssertEqual(layouts.map(\.revision), layouts.map(\.revision).sorted(), "revisions only grow")
        XCTAssertEqual(Set(layouts.map(\.revision)).count, layouts.count)
        XCTAssertEqual(try presenter.layout(of: menu), layouts.last)
    }

    // MARK: Providers

    func testTranslateShowsOnlyWithATranslateProvider() throws {
        let app = try app()
        try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 5, text: "hello"))
        XCTAssertNil(try app.editMenu(contextId: "f").element("menubus:translate"))
        let translator = try client()
        try translator.registerProvider(ProviderInfo(id: "org.example.Translator", title: "Translate", role: .translate)) { text, _ in text }
        XCTAssertNotNil(try app.editMenu(contextId: "f").element("menubus:translate"))
        XCTAssertNil(try app.editMenu(contextId: "f").element("menubus:lookup"), "no Look Up without a lookup provider")
        translator.close()
        XCTAssertTrue(eventually { (try? app.editMenu(contextId: "f").element("menubus:translate")) == nil },
                      "a provider leaving the bus leaves the menus")
    }

    func testProviderReplacesTheSelectionEndToEnd() throws {
        let app = try app()
        try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 5, text: "hello"))
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let provider = try client()
        var processed: [(String, [String: DBusValue])] = []
        try provider.registerProvider(ProviderInfo(id: "org.example.Uppercase", title: "Make Uppercase", returnsText: true)) { text, context in
            processed.append((text, context))
            return text.uppercased()
        }
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        let item = try XCTUnwrap(try presenter.layout(of: menu).element("menubus:provider:org.example.Uppercase"))
        XCTAssertEqual(item.title, "Make Uppercase")
        try presenter.activate(menu, itemId: item.id)
        XCTAssertTrue(pump([provider, app, presenter]) { !commands.isEmpty })
        XCTAssertEqual(processed.first?.0, "hello")
        XCTAssertEqual(processed.first?.1["app-id"], .string("org.example.Editor"))
        XCTAssertEqual(commands.first?.command, .replaceSelection)
        XCTAssertEqual(commands.first?.arguments["text"], .string("HELLO"))
    }

    func testProviderGetsTheTextFromTheAppWhenTheSelectionCarriedNone() throws {
        let app = try app()
        try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 5))
        app.selectedText = { _ in "from the app" }
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Reverse", title: "Reverse", returnsText: true)) { text, _ in
            String(text.reversed())
        }
        let menu = try app.present(contextId: "f", kind: .edit)
        try app.activate(menu, itemId: "menubus:provider:org.example.Reverse")
        XCTAssertTrue(pump([provider, app]) { !commands.isEmpty })
        XCTAssertEqual(commands.first?.arguments["text"], .string("ppa eht morf"))
    }

    func testReadOnlyContextGetsNoReplacement() throws {
        let app = try app()
        try app.publishContext("label", ContextInfo(kind: .text, contentTypes: ["text/plain"], editable: false, hasContent: true))
        try app.updateSelection("label", Selection(kind: .range, length: 3, text: "abc"))
        var commands: [CommandInvocation] = []
        app.onCommand = { commands.append($0) }
        let provider = try client()
        var calls = 0
        try provider.registerProvider(ProviderInfo(id: "org.example.Upper", title: "Shout", returnsText: true)) { text, _ in
            calls += 1
            return text.uppercased()
        }
        let menu = try app.present(contextId: "label", kind: .edit)
        try app.activate(menu, itemId: "menubus:provider:org.example.Upper")
        XCTAssertTrue(pump([provider, app]) { calls == 1 })
        pump([provider, app], timeout: 0.3) { false }
        XCTAssertTrue(commands.isEmpty, "no replace-selection into a read-only context")
    }

    func testProviderLeavingUpdatesOpenMenus() throws {
        let app = try app()
        try app.publishContext("f", field)
        try app.updateSelection("f", Selection(kind: .range, length: 5, text: "hello"))
        let provider = try client()
        try provider.registerProvider(ProviderInfo(id: "org.example.Gone", title: "Go Away")) { _, _ in "" }
        let presenter = try client()
        var layouts: [Menu] = []
        try presenter.observeMenus { _, menu in layouts.append(menu) }
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "f", kind: .edit)
        XCTAssertNotNil(try presenter.layout(of: menu).element("menubus:provider:org.example.Gone"))
        provider.close()
        XCTAssertTrue(presenter.run(until: { !layouts.isEmpty }, timeout: 5))
        XCTAssertNil(layouts.last?.element("menubus:provider:org.example.Gone"))
    }

    func testProviderIdsBelongToTheirConnection() throws {
        let first = try client()
        let second = try client()
        try first.registerProvider(ProviderInfo(id: "org.example.Mine", title: "Mine")) { _, _ in "" }
        assertBusError(BusError.Domain.accessDenied.errorName) {
            try second.registerProvider(ProviderInfo(id: "org.example.Mine", title: "Theirs")) { _, _ in "" }
        }
        assertBusError(BusError.Domain.accessDenied.errorName) { try second.unregisterProvider("org.example.Mine") }
        assertBusError(BusError.Standard.invalidArgs) {
            try second.registerProvider(ProviderInfo(id: "bad id!", title: "Bad")) { _, _ in "" }
        }
        try first.unregisterProvider("org.example.Mine")
    }

    // MARK: Isolation

    func testAHungClientCostsOnlyItsOwnElements() throws {
        let hung = try app("org.example.Hung")
        let items = (0..<20).map { MenuElement(id: "d\($0)", kind: .deferred, cached: false) }
        try hung.publishContext("row", ContextInfo(kind: .file), items: items)
        let presenter = try client()
        for _ in 0..<5 {
            _ = try presenter.present(owner: "org.example.Hung", contextId: "row", kind: .context)
        }
        // 100 ProvideElements calls now wait on a client that never reads.
        let other = try app("org.example.Busy")
        try other.publishContext("f", field)
        try other.updateSelection("f", Selection(kind: .range, length: 2))
        for _ in 0..<50 {
            XCTAssertNotNil(try other.editMenu(contextId: "f").element("menubus:copy"))
        }
        XCTAssertTrue(daemon.isRunning)
    }

    func testAChoiceClosesTheMenuAtOnceSoASecondClickIsRefused() throws {
        let app = try app()
        try app.publishContext("row", ContextInfo(kind: .file), items: [MenuElement(id: "rename", title: "Rename")])
        var actions = 0
        app.onAction = { _ in actions += 1 }
        let presenter = try client()
        let menu = try presenter.present(owner: "org.example.Editor", contextId: "row", kind: .context)
        try presenter.activate(menu, itemId: "rename")
        assertBusError(BusError.Standard.unknownObject) { try presenter.activate(menu, itemId: "rename") }
        XCTAssertTrue(pump([app, presenter]) { actions == 1 })
        pump([app, presenter], timeout: 0.3) { false }
        XCTAssertEqual(actions, 1, "delivered once")
    }

    func testAnItemThatKeepsTheMenuOpenCanBeChosenAgain() throws {
        let app = try app()
        try app.publishContext("row", ContextInfo(kind: .file),
                               items: [MenuElement(id: "zoom", title: "Zoom In", attributes: [.keepsMenuPresented])])
        var actions = 0
        app.onAction = { _ in actions += 1 }
        let menu = try app.present(contextId: "row", kind: .context)
        try app.activate(menu, itemId: "zoom")
        try app.activate(menu, itemId: "zoom")
        XCTAssertTrue(app.run(until: { actions == 2 }, timeout: 5))
        XCTAssertNotNil(try app.layout(of: menu).element("zoom"), "still open")
    }

    func testCallbacksFromAnyoneButMenubusdAreRefused() throws {
        let app = try app()
        var actions = 0
        app.onAction = { _ in actions += 1 }
        let stranger = try connect()
        var result: Result<[DBusValue], BusError>?
        stranger.call(destination: app.uniqueName, path: "/org/menubus/Client", interface: "org.menubus.MenuBus1.Client",
                      member: "ActionInvoked", arguments: [.string("row"), .string("rename"), .array("{sv}", [])],
                      timeout: 5) { result = $0 }
        let deadline = Date().addingTimeInterval(5)
        while result == nil && Date() < deadline {
            app.run(until: { false }, timeout: 0.005)
            stranger.loop.run(until: { result != nil }, timeout: 0.005)
        }
        guard case .failure(let error) = result else { return XCTFail("a stranger's ActionInvoked must fail") }
        XCTAssertEqual(error.name, BusError.Domain.accessDenied.errorName)
        XCTAssertEqual(actions, 0)
    }

    func testADroppedClientLeavesTheBusAndItsContextsGo() throws {
        var dropped: MenuBusClient? = try app("org.example.Dropped")
        try dropped?.publishContext("row", ContextInfo(kind: .file))
        let observer = try client()
        XCTAssertTrue(try observer.listContexts().contains { $0.appId == "org.example.Dropped" })
        dropped = nil
        XCTAssertTrue(eventually { (try? observer.listContexts().contains { $0.appId == "org.example.Dropped" }) == false })
    }
}
