import XCTest
@testable import MenuBusModel
@testable import MenuBusProtocol
@testable import MenuBusService

/// The spans a context's items were read from serve only while the context
/// holds that very array, and the store stays within its budget.
final class HeldItemSpansTests: XCTestCase {
    private let spans = ElementSpans(isLittleEndian: true)

    func testSpansServeOnlyTheArrayTheyWereReadInto() {
        let held = HeldItemSpans()
        let items = [MenuElement(id: "a", title: "A"), MenuElement(id: "b", title: "B")]
        held.keep(spans, of: items, owner: ":1.1", contextId: "c")
        let stored = items  // the context's copy shares the array
        XCTAssertNotNil(held.spans(owner: ":1.1", contextId: "c", items: stored))

        XCTAssertNil(held.spans(owner: ":1.2", contextId: "c", items: stored), "another owner's context")
        XCTAssertNil(held.spans(owner: ":1.1", contextId: "d", items: stored))

        var changed = stored
        changed[1].title = "Changed"
        let equal = [MenuElement(id: "a", title: "A"), MenuElement(id: "b", title: "B")]
        XCTAssertEqual(equal, items)
        for (other, why) in [(changed, "changed in place: another array"), (equal, "equal is not the same array")] {
            held.keep(spans, of: items, owner: ":1.1", contextId: "c")
            XCTAssertNil(held.spans(owner: ":1.1", contextId: "c", items: other), why)
            XCTAssertEqual(held.count, 0, "\(why): the entry goes, and the old array with it")
        }
        held.keep(spans, of: items, owner: ":1.1", contextId: "c")

        held.keep(nil, of: stored, owner: ":1.1", contextId: "c")
        XCTAssertNil(held.spans(owner: ":1.1", contextId: "c", items: stored), "a list too large keeps none")
    }

    func testTheLeastRecentlyUsedGoFirstAndAnOwnersGoWithIt() {
        let held = HeldItemSpans()
        let lists = (0..<(HeldItemSpans.maxEntries + 2)).map { [MenuElement(id: "e\($0)")] }
        for (index, items) in lists.enumerated().prefix(HeldItemSpans.maxEntries) {
            held.keep(spans, of: items, owner: ":1.1", contextId: "c\(index)")
        }
        XCTAssertNotNil(held.spans(owner: ":1.1", contextId: "c0", items: lists[0]), "c0 used again: c1 is the oldest")
        held.keep(spans, of: lists[HeldItemSpans.maxEntries], owner: ":1.2", contextId: "x")
        XCTAssertEqual(held.count, HeldItemSpans.maxEntries)
        XCTAssertNil(held.spans(owner: ":1.1", contextId: "c1", items: lists[1]))
        XCTAssertNotNil(held.spans(owner: ":1.1", contextId: "c0", items: lists[0]))

        held.drop(owner: ":1.1", contextId: "c0")
        XCTAssertNil(held.spans(owner: ":1.1", contextId: "c0", items: lists[0]))
        held.drop(owner: ":1.1")
        XCTAssertEqual(held.count, 1)
        XCTAssertNotNil(held.spans(owner: ":1.2", contextId: "x", items: lists[HeldItemSpans.maxEntries]))
    }
}
