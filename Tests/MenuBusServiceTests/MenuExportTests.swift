import XCTest
@testable import MenuBusService
@testable import MenuBusDBus
@testable import MenuBusModel

/// The steps every exported menu protocol goes through (`MenuExport`), as
/// plain values: no bus.
final class MenuExportTests: XCTestCase {
    /// A protocol of its own, registered beside the two served ones.
    final class CountingExport: MenuExport {
        var current: [String]?
        var shown: [String]?
        var builds = 0, drops = 0, closings = 0
        var left: [String] = []
        init() {}
        static func interfaces(_ menus: PresentedMenus) -> [Interface] { [] }
        static func build(_ elements: [MenuElement], title: String?, ids: inout ExportIDs, previous: [String]?) -> [String] {
            elements.map(\.id)
        }
        func dropReplies() { drops += 1 }
        func emitChanges(from old: [String], to new: [String], _ change: ExportChange) {}
        func closing() { closings += 1 }
        func peerLeft(_ uniqueName: String) -> Bool {
            left.append(uniqueName)
            return uniqueName == ":1.7"
        }
    }

    private func exports() -> (PresentationExports, CountingExport) {
        let state = PresentationExports(PresentedMenus.menuExports + [CountingExport.self])
        return (state, state.export(CountingExport.self))
    }

    func testTheServedProtocolsAreDbusmenuThenGMenu() {
        let state = PresentationExports()
        XCTAssertEqual(state.protocols.count, 2)
        XCTAssertTrue(state.protocols[0] is DBusMenuExport)
        XCTAssertTrue(state.protocols[1] is GMenuExport)
    }

    func testAMappingIsBuiltOnFirstReadAndKeptToSignalFromAtTheNextRevision() {
        let (state, counting) = exports()
        state.startRevision(2, elements: [MenuElement(id: "a", title: "A")], title: nil)
        XCTAssertNil(counting.current, "nothing is built before a consumer reads")
        XCTAssertFalse(counting.hasChangeToSignal, "a protocol nobody read signals nothing")
        XCTAssertEqual(counting.mapping(in: state), ["a"])
        XCTAssertEqual(counting.mapping(in: state), ["a"])
        state.startRevision(3, elements: [MenuElement(id: "b", title: "B")], title: nil)
        XCTAssertEqual(counting.shown, ["a"], "what consumers read is what the change is signalled from")
        XCTAssertNil(counting.current)
        XCTAssertTrue(counting.hasChangeToSignal)
        XCTAssertEqual(counting.drops, 2, "each revision drops the replies of the one before")
        XCTAssertEqual(counting.mapping(in: state), ["b"])
        state.close()
        XCTAssertEqual(counting.shown, ["b"])
        XCTAssertEqual(counting.mapping(in: state), [], "a closing menu is empty")
        XCTAssertEqual(state.revision, 4, "above every revision consumers saw")
        XCTAssertTrue(state.isClosing)
    }

    func testAPeerLeavingReachesEveryProtocol() {
        let (state, counting) = exports()
        state.subscribe(":1.7", to: 0)
        var closed: [Bool] = []
        for export in state.protocols { closed.append(export.peerLeft(":1.7")) }
        XCTAssertEqual(closed, [false, true, true], "GMenu: the last subscriber left; the counting one says so too")
        XCTAssertEqual(counting.left, [":1.7"])
        XCTAssertTrue(state.hasNoSubscribers)
    }

    func testTheGetLayoutQueriesOfARevisionAreKeptToPrepareAtTheNext() throws {
        let state = PresentationExports()
        state.startRevision(1, elements: [MenuElement(id: "a", title: "A")], title: nil)
        XCTAssertTrue(state.recentLayoutQueries.isEmpty)
        let reply = try PreparedReply([.uint32(1)])
        for parent: Int32 in [5, 0, 3, 1, 2, 4] {
            state.cacheLayout(reply, for: .init(parent: parent, depth: -1, names: []))
        }
        state.startRevision(2, elements: [MenuElement(id: "b", title: "B")], title: nil)
        XCTAssertTrue(state.layoutReplies.isEmpty, "the old revision's replies go")
        XCTAssertEqual(state.recentLayoutQueries.map(\.parent), [0, 1, 2, 3],
                       "at most maxPreparedQueries, in a stable order")
        state.startRevision(3, elements: [], title: nil)
        XCTAssertEqual(state.recentLayoutQueries.count, 4, "a revision nobody asked about keeps the last queries asked")
    }
}
