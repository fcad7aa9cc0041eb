import XCTest
@testable import MenuBusService
@testable import MenuBusModel

/// The bytes each app holds and all apps hold, kept as contexts change,
/// agree with a count over every context after every kind of change.
final class RegisteredAppsTests: XCTestCase {
    private func context(_ id: String, items: Int, selection: Int = 0) -> PublishedContext {
        var context = PublishedContext(id: id, info: ContextInfo(kind: .item),
                                       items: [MenuElement(id: "e", title: "E"), MenuElement(id: "d", kind: .deferred)],
                                       revision: 1)
        context.itemsBytes = items
        context.selectionBytes = selection
        return context
    }

    private func assertCounted(_ apps: RegisteredApps, _ label: String, line: UInt = #line) {
        let counted = apps.countedBytes
        XCTAssertEqual(apps.totalBytes, counted.total, label, line: line)
        for name in [":1.1", ":1.2", ":1.3"] {
            XCTAssertEqual(apps.heldBytes(by: name), counted.byName[name] ?? 0, "\(label): \(name)", line: line)
        }
    }

    func testHeldBytesFollowEveryChange() throws {
        let apps = RegisteredApps()
        XCTAssertTrue(try apps.register(":1.1", appId: "org.example.A", clientPath: "/a"))
        XCTAssertTrue(try apps.register(":1.2", appId: "org.example.B", clientPath: "/b"))
        apps.store(context("one", items: 100), of: ":1.1")
        apps.store(context("two", items: 40, selection: 8), of: ":1.1")
        apps.store(context("one", items: 7), of: ":1.2")
        assertCounted(apps, "stored")
        XCTAssertEqual(apps.totalBytes, 155)
        apps.store(context("one", items: 30), of: ":1.1")
        assertCounted(apps, "replaced smaller")
        apps.cache([MenuElement(id: "x", title: "X")], bytes: 500, for: "d", in: "two", of: ":1.1")
        assertCounted(apps, "cached")
        XCTAssertEqual(apps.heldBytes(by: ":1.1"), 30 + 48 + 500)
        var emptied = try XCTUnwrap(apps[":1.1"]?.contexts["two"])
        emptied.items = []  // its deferred element goes, and the cache with it
        apps.store(emptied, of: ":1.1")
        assertCounted(apps, "cache dropped with its element")
        apps.store(context("nobody", items: 9), of: ":1.3")
        apps.cache([], bytes: 9, for: "d", in: "missing", of: ":1.2")
        assertCounted(apps, "unregistered owner, missing context")
        apps.removeContext("one", of: ":1.1")
        apps.removeContext("one", of: ":1.1")
        assertCounted(apps, "removed twice")
        _ = apps.remove(":1.2")
        assertCounted(apps, "app left")
        _ = apps.remove(":1.1")
        XCTAssertEqual(apps.totalBytes, 0)
        assertCounted(apps, "all left")
    }
}
