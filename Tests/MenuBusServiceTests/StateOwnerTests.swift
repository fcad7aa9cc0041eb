import XCTest
@testable import MenuBusService
@testable import MenuBusDBus
@testable import MenuBusModel

/// The owners of menubusd's state (live presentations, registered
/// providers, registered apps), as plain values: no bus.
final class StateOwnerTests: XCTestCase {
    // MARK: Live presentations

    private func present(_ live: Presentations, presenter: String = ":1.2", owner: String = ":1.1",
                         context: String = "text", cost: Int = 100) -> Presentation {
        live.add(cost: cost) { Presentation(number: $0, kind: .context, owner: owner, contextId: context, presenter: presenter) }
    }

    func testLivePresentationsNumberOnceAndChargeOnlyWhileLive() throws {
        let live = Presentations()
        let first = present(live), second = present(live, presenter: ":1.3", cost: 50)
        XCTAssertEqual([first.number, second.number], [1, 2])
        XCTAssertEqual(live.bytes(presentedBy: ":1.2"), 100)
        XCTAssertEqual(live.totalBytes, 150)
        live.charge(first.number, 300)
        XCTAssertEqual(live.totalBytes, 350)
        XCTAssertTrue(live.remove(first.number) === first)
        XCTAssertNil(live.remove(first.number), "removed once")
        live.charge(first.number, 999)
        XCTAssertEqual(live.totalBytes, 50, "a menu no longer live is charged nothing")
        XCTAssertEqual(present(live).number, 3, "a number is never handed out twice")
        XCTAssertEqual(live.showing(owner: ":1.1", contextId: "text").count, 2)
        XCTAssertEqual(live.showing(owner: ":1.1", contextId: "other").count, 0)
    }

    func testAPresenterHoldsABoundedNumberOfMenus() throws {
        let live = Presentations()
        for _ in 0..<ServiceLimits.maxPresentationsPerPresenter { _ = present(live) }
        XCTAssertThrowsError(try live.checkRoom(for: ":1.2")) { error in
            XCTAssertEqual((error as? BusError)?.message,
                           "a presenter may hold at most \(ServiceLimits.maxPresentationsPerPresenter) live menus; dismiss some first")
        }
        XCTAssertNoThrow(try live.checkRoom(for: ":1.9"), "another presenter still has room")
    }

    func testPresentationsMarkTheirMenusStale() {
        let live = Presentations()
        let text = present(live), other = present(live, context: "other")
        for menu in [text, other] { _ = menu.update([]) }
        XCTAssertEqual(live.markStale(owner: ":1.1", contextId: "text").map(\.number), [text.number])
        XCTAssertEqual(text.composition, .stale)
        XCTAssertEqual(other.composition, .current, "another context's menu is left alone")
        XCTAssertEqual(Set(live.markAllStale().map(\.number)), [text.number, other.number])
        XCTAssertEqual(other.composition, .stale)
    }

    func testExportsOutliveTheirMenuUntilDropped() {
        let live = Presentations()
        let menu = present(live)
        XCTAssertNil(live.exports(menu.number), "exports start when the object is exported")
        live.startExports(menu.number, owner: menu.owner, presenter: menu.presenter)
        guard let state = live.exports(menu.number) else { return XCTFail("exports started") }
        XCTAssertTrue(live.isCurrent(state, of: menu.number))
        live.remove(menu.number)
        XCTAssertNil(live[menu.number])
        XCTAssertTrue(live.exports(menu.number) === state, "a closed menu's exports stay until its object goes")
        live.dropExports(menu.number)
        XCTAssertNil(live.exports(menu.number))
        XCTAssertFalse(live.isCurrent(state, of: menu.number))
    }

    func testAConsumerClosingEndsTheMenuUnlessItOpensAgain() {
        let live = Presentations()
        let menu = present(live)
        XCTAssertNil(live.requestEnd(menu.number), "no exports, nothing to end")
        live.startExports(menu.number, owner: menu.owner, presenter: menu.presenter)
        let first = live.requestEnd(menu.number)
        XCTAssertNotNil(first)
        XCTAssertTrue(live.isEndRequested(menu.number, first ?? -1))
        live.callOffEnd(menu.number)
        XCTAssertFalse(live.isEndRequested(menu.number, first ?? -1), "opened again: the end is called off")
        let second = live.requestEnd(menu.number)
        XCTAssertFalse(live.isEndRequested(menu.number, first ?? -1), "an older request does not act on a newer one")
        XCTAssertTrue(live.isEndRequested(menu.number, second ?? -1))
        live.exports(menu.number)?.close()
        XCTAssertNil(live.requestEnd(menu.number), "a closing menu is not ended again")
    }

    func testTheLastSubscriberLeavingClosesTheMenu() {
        let live = Presentations()
        let menu = present(live)
        live.startExports(menu.number, owner: menu.owner, presenter: menu.presenter)
        let state = live.exports(menu.number)
        state?.subscribe(":1.7", to: 0)
        state?.subscribe(":1.8", to: 0)
        XCTAssertEqual(live.peerLeft(":1.7"), [], "another consumer still holds it")
        XCTAssertEqual(live.peerLeft(":1.8"), [menu.number])
        XCTAssertEqual(live.peerLeft(":1.8"), [], "once")
    }

    // MARK: Registered providers

    func testProvidersKeepTheirPlaceAndOnlyTheirOwnerChangesThem() throws {
        let providers = RegisteredProviders()
        let path = ObjectPath(stringLiteral: "/p")
        try providers.register("b", ProviderInfo(id: "b", title: "B"), owner: ":1.1", path: path)
        try providers.register("a", ProviderInfo(id: "a", title: "A"), owner: ":1.2", path: path)
        try providers.register("b", ProviderInfo(id: "b", title: "B2"), owner: ":1.1", path: path)
        XCTAssertEqual(providers.inOrder.map(\.info.title), ["B2", "A"], "an update keeps its place")
        XCTAssertThrowsError(try providers.register("b", ProviderInfo(id: "b", title: "X"), owner: ":1.9", path: path)) { error in
            XCTAssertEqual((error as? BusError)?.message, "providerId: 'b' is registered by another connection")
        }
        XCTAssertThrowsError(try providers.unregister("a", caller: ":1.1"))
        XCTAssertThrowsError(try providers.unregister("zz", caller: ":1.1")) { error in
            XCTAssertEqual((error as? BusError)?.message, "providerId: no provider 'zz' is registered")
        }
        XCTAssertTrue(providers.removeAll(ownedBy: ":1.1"))
        XCTAssertFalse(providers.removeAll(ownedBy: ":1.1"))
        XCTAssertEqual(providers.inOrder.map(\.info.id), ["a"])
        try providers.unregister("a", caller: ":1.2")
        XCTAssertTrue(providers.byId.isEmpty)
    }

    // MARK: Registered apps

    func testAppsRegisterOnceAndCountWhatTheirContextsHold() throws {
        let apps = RegisteredApps()
        let path = ObjectPath(stringLiteral: "/c")
        XCTAssertTrue(try apps.register(":1.1", appId: "org.example.A", clientPath: path))
        XCTAssertFalse(try apps.register(":1.1", appId: "org.example.A", clientPath: ObjectPath(stringLiteral: "/d")))
        XCTAssertEqual(apps[":1.1"]?.clientPath, ObjectPath(stringLiteral: "/d"))
        XCTAssertThrowsError(try apps.register(":1.1", appId: "org.example.B", clientPath: path)) { error in
            XCTAssertEqual((error as? BusError)?.message, "appId: this connection is already registered as 'org.example.A'")
        }
        XCTAssertTrue(try apps.register(":1.2", appId: "org.example.A", clientPath: path))
        XCTAssertLessThan(apps[":1.1"]!.sequence, apps[":1.2"]!.sequence, "the later registration is the more recent")
        let first = apps.nextRevision(), second = apps.nextRevision()
        XCTAssertLessThan(first, second)
        var context = PublishedContext(id: "text", info: ContextInfo(kind: .text), items: [], revision: second)
        context.itemsBytes = 40
        apps.store(context, of: ":1.1")
        apps.store(context, of: ":1.9")
        XCTAssertNil(apps[":1.9"], "a context is stored only for a registered app")
        apps.cache([MenuElement(id: "x", title: "X")], bytes: 10, for: "later", in: "text", of: ":1.1")
        XCTAssertEqual(apps.heldBytes(by: ":1.1"), 50)
        XCTAssertEqual(apps.totalBytes, 50)
        XCTAssertEqual(apps.contextCount, 1)
        apps.removeContext("text", of: ":1.1")
        XCTAssertEqual(apps.totalBytes, 0)
        XCTAssertEqual(apps.remove(":1.2")?.appId, "org.example.A")
        XCTAssertNil(apps.remove(":1.2"))
        XCTAssertEqual(apps.byName.count, 1)
    }
}
