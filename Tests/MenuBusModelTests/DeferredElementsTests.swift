import XCTest
@testable import MenuBusModel

/// The pure stand-in rules for deferred elements.
final class DeferredElementsTests: XCTestCase {
    private let menu = [
        MenuElement(id: "first", title: "First"),
        MenuElement(id: "later", kind: .deferred),
        MenuElement(id: "last", title: "Last"),
    ]

    func testLoadingItemStandsInWhileWaiting() {
        let resolution = DeferredElements.resolve(menu, provided: [:], failed: [])
        XCTAssertEqual(resolution.elements.map(\.id), ["first", "later", "last"])
        XCTAssertEqual(resolution.elements[1].title, "Loading…")
        XCTAssertEqual(resolution.elements[1].kind, .action)
        XCTAssertTrue(resolution.elements[1].attributes.contains(.disabled))
        XCTAssertEqual(resolution.waiting.map(\.id), ["later"])
    }

    func testProvidedElementsTakeThePlaceInOrder() {
        let provided = [MenuElement(id: "a", title: "A"), MenuElement(id: "sub", kind: .menu, title: "Sub"),
                        MenuElement(id: "b", parent: "sub", title: "B")]
        let resolution = DeferredElements.resolve(menu, provided: ["later": provided], failed: [])
        XCTAssertEqual(resolution.elements.map(\.id), ["first", "a", "sub", "b", "last"])
        XCTAssertEqual(resolution.elements.first { $0.id == "b" }?.parent, "sub")
        XCTAssertTrue(resolution.waiting.isEmpty)
    }

    func testProvidedTopLevelTakesTheDeferredElementsParent() {
        let nested = [MenuElement(id: "section", kind: .menu, options: [.inline]),
                      MenuElement(id: "later", parent: "section", kind: .deferred)]
        let resolution = DeferredElements.resolve(nested, provided: ["later": [MenuElement(id: "x", title: "X")]], failed: [])
        XCTAssertEqual(resolution.elements.last?.parent, "section")
    }

    func testFailedElementDisappears() {
        let resolution = DeferredElements.resolve(menu, provided: [:], failed: ["later"])
        XCTAssertEqual(resolution.elements.map(\.id), ["first", "last"])
        XCTAssertTrue(resolution.waiting.isEmpty)
    }

    func testProvidedIdsThatClashWithTheMenuAreDropped() {
        let provided = [MenuElement(id: "first", kind: .menu, title: "Clash"), MenuElement(id: "child", parent: "first", title: "C"),
                        MenuElement(id: "fresh", title: "Fresh")]
        let resolution = DeferredElements.resolve(menu, provided: ["later": provided], failed: [])
        XCTAssertEqual(resolution.elements.map(\.id), ["first", "fresh", "last"])
    }

    func testMenusWithoutDeferredElementsPassThrough() {
        let plain = [MenuElement(id: "a", title: "A")]
        XCTAssertEqual(DeferredElements.resolve(plain, provided: [:], failed: []).elements, plain)
    }

    func testContentCannotReuseAnotherDeferredElementsId() {
        let twoDeferred = [MenuElement(id: "d1", kind: .deferred), MenuElement(id: "d2", kind: .deferred)]
        let resolution = DeferredElements.resolve(twoDeferred, provided: ["d1": [MenuElement(id: "d2", title: "Clash")]], failed: [])
        XCTAssertEqual(resolution.elements.filter { $0.id == "d2" }.count, 1)
        XCTAssertEqual(resolution.elements.first { $0.id == "d2" }?.title, "Loading…")
    }

    func testContentFollowsTheAppItemRules() {
        let content = [
            MenuElement(id: "shown", title: "Shown"),
            MenuElement(id: "secret", title: "Secret", attributes: [.hidden]),
            MenuElement(id: "nested-deferred", kind: .deferred),
        ]
        let resolution = DeferredElements.resolve(menu, provided: ["later": content], failed: [])
        XCTAssertEqual(resolution.elements.map(\.id), ["first", "shown", "last"])
    }

    func testContentThatWouldPassTheElementLimitCountsAsFailed() {
        let huge = (0..<Limits.maxElementsPerMenu).map { MenuElement(id: "x\($0)", title: "X") }
        let resolution = DeferredElements.resolve(menu, provided: ["later": huge], failed: [])
        XCTAssertEqual(resolution.elements.map(\.id), ["first", "last"])
        XCTAssertLessThanOrEqual(resolution.elements.count, Limits.maxElementsPerMenu)
    }
}
