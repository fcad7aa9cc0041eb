import XCTest
@testable import MenuBusModel

/// A submenu or section that shows nothing is never served, and lint says
/// so of a menu that has one.
final class EmptyMenuTests: XCTestCase {
    private let menu: [MenuElement] = [
        MenuElement(id: "open", title: "Open"),
        MenuElement(id: "share", kind: .menu, title: "Share"),
        MenuElement(id: "more", kind: .menu, title: "More"),
        MenuElement(id: "secret", parent: "more", title: "Hidden Thing", attributes: [.hidden]),
        MenuElement(id: "recent", kind: .menu, title: "Recent"),
        MenuElement(id: "nested", parent: "recent", kind: .menu, options: [.inline]),
        MenuElement(id: "copy", title: "Copy Link"),
    ]

    func testEmptySubmenusAndSectionsAreLeftOutWithWhatIsUnderThem() {
        let served = DeferredElements.resolve(menu, provided: [:], failed: []).elements
        XCTAssertEqual(served.map(\.id), ["open", "copy"])
    }

    func testADeferredElementThatFailedEmptiesItsSubmenuWhichThenGoes() {
        let composed = [MenuElement(id: "recents", kind: .menu, title: "Recents"),
                        MenuElement(id: "list", parent: "recents", kind: .deferred),
                        MenuElement(id: "copy", title: "Copy Link")]
        XCTAssertEqual(DeferredElements.resolve(composed, provided: [:], failed: []).elements.map(\.id),
                       ["recents", "list", "copy"], "Loading… keeps it while pending")
        XCTAssertEqual(DeferredElements.resolve(composed, provided: [:], failed: ["list"]).elements.map(\.id), ["copy"])
    }

    func testLintWarnsOfASubmenuWithNothingToShow() {
        let findings = Lint.check(kind: .context, elements: menu)
        let empty = findings.filter { $0.message.contains("has nothing to show") }.map(\.elementId)
        XCTAssertEqual(empty, ["share", "more", "nested"])
        XCTAssertTrue(Lint.check(kind: .context, elements: [MenuElement(id: "open", title: "Open Link")])
            .allSatisfy { !$0.message.contains("nothing to show") })
    }
}
