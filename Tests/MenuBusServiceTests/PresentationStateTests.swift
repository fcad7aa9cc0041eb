import XCTest
@testable import MenuBusService
@testable import MenuBusDBus
@testable import MenuBusModel

/// The states a presentation owns and the transitions between them, as
/// plain values: no bus.
final class PresentationStateTests: XCTestCase {
    private func presentation() -> Presentation {
        Presentation(number: 1, kind: .context, owner: ":1.1", contextId: "text", presenter: ":1.2")
    }

    private let items = [MenuElement(id: "a", title: "A")]

    func testThePhaseOnlyMovesForward() throws {
        let menu = presentation()
        XCTAssertEqual(menu.phase, .composing)
        XCTAssertFalse(menu.phase.isSignalled, "nothing is signalled before the menu is on the bus")
        XCTAssertFalse(menu.choose(), "a menu not yet presented cannot be chosen from")
        XCTAssertTrue(menu.update(items))
        XCTAssertTrue(menu.presented(title: "Doc", selectionRect: nil))
        XCTAssertEqual(menu.phase, .presented)
        XCTAssertEqual(menu.shownTitle, "Doc")
        XCTAssertTrue(menu.phase.isSignalled)
        XCTAssertFalse(menu.presented(title: "Other", selectionRect: nil), "presented once")
        XCTAssertEqual(menu.shownTitle, "Doc")
        XCTAssertNoThrow(try menu.checkChoosable())
        XCTAssertTrue(menu.choose())
        XCTAssertEqual(menu.phase, .chosen)
        XCTAssertFalse(menu.choose(), "one choice closes the menu")
        XCTAssertThrowsError(try menu.checkChoosable()) { error in
            XCTAssertEqual((error as? BusError)?.name, BusError.Standard.unknownObject)
            XCTAssertEqual((error as? BusError)?.message, "the menu was closed by an earlier choice")
        }
        XCTAssertTrue(menu.phase.isSignalled, "a chosen menu still signals until it closes")
        XCTAssertTrue(menu.close())
        XCTAssertEqual(menu.phase, .closed)
        XCTAssertFalse(menu.close(), "closed once")
        XCTAssertFalse(menu.phase.isSignalled)
        XCTAssertFalse(menu.presented(title: "", selectionRect: nil))
        XCTAssertThrowsError(try menu.checkChoosable()) { error in
            XCTAssertEqual((error as? BusError)?.message, "the menu was closed")
        }
    }

    func testAnEmptyMenuIsNotPresentedAndCloses() {
        let menu = presentation()
        _ = menu.update([])
        XCTAssertFalse(menu.presented(title: "", selectionRect: nil), "nothing a person can see")
        XCTAssertEqual(menu.phase, .closed)
        XCTAssertFalse(menu.ask("later"), "nothing is asked for a closed menu")
    }

    /// Its states are enums with named cases; a Bool stored on it would be
    /// a flag set from elsewhere again (issue 29).
    func testAPresentationStoresNoBoolFlags() {
        let menu = presentation()
        _ = menu.update(items)
        menu.presented(title: "", selectionRect: nil)
        _ = menu.signalRequested(now: 1, interval: 16_000_000)
        let flags = Mirror(reflecting: menu).children.filter {
            let type = type(of: $0.value)
            return type == Bool.self || type == Bool?.self
        }
        XCTAssertEqual(flags.map { $0.label ?? "?" }, [], "Presentation keeps Bool state flags")
        XCTAssertGreaterThan(Mirror(reflecting: menu).children.count, 10, "the mirror sees the stored properties")
    }

    func testAMenuRefusedBeforeItWasPresentedCloses() {
        let menu = presentation()
        XCTAssertTrue(menu.close())
        XCTAssertFalse(menu.presented(title: "", selectionRect: nil))
        XCTAssertFalse(menu.ask("later"), "nothing is asked for a closed menu")
    }

    func testADeferredElementIsAskedOnceAndAnsweredOnce() {
        let menu = presentation()
        _ = menu.update(items)
        XCTAssertEqual(menu.composition, .current)
        XCTAssertTrue(menu.ask("later"))
        XCTAssertFalse(menu.ask("later"), "asked once per presentation")
        XCTAssertEqual(menu.deferred["later"], .loading)
        XCTAssertFalse(menu.provide("never-asked", content: items, bytes: 10), "an answer nobody asked for is refused")
        XCTAssertTrue(menu.provide("later", content: items, bytes: 10))
        XCTAssertEqual(menu.composition, .stale, "an answer recomposes the menu")
        XCTAssertEqual(menu.provided["later"], items)
        XCTAssertEqual(menu.providedBytes, 10)
        XCTAssertFalse(menu.fail("later"), "answered once")
        XCTAssertFalse(menu.provide("later", content: [], bytes: 99))
        XCTAssertEqual(menu.providedBytes, 10)
        XCTAssertTrue(menu.failed.isEmpty)
        XCTAssertTrue(menu.ask("other"))
        XCTAssertTrue(menu.fail("other"))
        XCTAssertEqual(menu.failed, ["other"])
        XCTAssertEqual(Set(menu.provided.keys), ["later"])
        XCTAssertFalse(menu.ask("other"), "a failed element is not asked again")
        menu.close()
        XCTAssertTrue(menu.ask("third") == false)
    }

    func testAnAnswerAfterTheMenuClosedIsRefused() {
        let menu = presentation()
        XCTAssertTrue(menu.ask("later"))
        menu.close()
        XCTAssertFalse(menu.provide("later", content: items, bytes: 1))
        XCTAssertFalse(menu.fail("later"))
        XCTAssertEqual(menu.deferred["later"], .loading)
    }

    func testComposingClearsStaleAndOnlyAChangeGrowsTheRevision() {
        let menu = presentation()
        XCTAssertEqual(menu.composition, .stale)
        XCTAssertTrue(menu.update(items))
        XCTAssertEqual(menu.revision, 2)
        menu.markStale()
        XCTAssertEqual(menu.composition, .stale)
        XCTAssertFalse(menu.update(items), "the same layout")
        XCTAssertEqual(menu.composition, .current)
        XCTAssertEqual(menu.revision, 2)
        XCTAssertTrue(menu.update(items, title: "Doc"))
        XCTAssertEqual(menu.revision, 3)
    }

    func testShownPropertiesReportWhatChanged() {
        let menu = presentation()
        let rect = Rect(x: 1, y: 2, width: 3, height: 4)
        XCTAssertEqual(menu.show(title: "", selectionRect: nil), [])
        XCTAssertEqual(menu.show(title: "Doc", selectionRect: rect), ["Title", "SelectionRect"])
        XCTAssertEqual(menu.show(title: "Doc", selectionRect: rect), [])
        XCTAssertEqual(menu.show(title: "Doc", selectionRect: nil), ["SelectionRect"])
    }

    func testSignalsAreCoalescedToOneFlushPerInterval() {
        let menu = presentation()
        let interval: UInt64 = 16_000_000
        _ = menu.update(items)
        XCTAssertFalse(menu.layoutToSignal(now: 1), "nothing is signalled before the menu is presented")
        menu.presented(title: "", selectionRect: nil)
        XCTAssertFalse(menu.layoutToSignal(now: 1), "the layout PresentMenu returned counts as signalled")
        let start: UInt64 = 1_000_000_000
        XCTAssertEqual(menu.signalRequested(now: start, interval: interval), .now, "the first of a burst goes at once")
        _ = menu.update(items, title: "changed")
        XCTAssertTrue(menu.layoutToSignal(now: start))
        XCTAssertFalse(menu.layoutToSignal(now: start), "a revision is signalled once")
        XCTAssertEqual(menu.signalRequested(now: start + 4_000_000, interval: interval), .after(0.012))
        XCTAssertEqual(menu.signalRequested(now: start + 5_000_000, interval: interval), .scheduled,
                       "a change within the interval joins the scheduled flush")
        menu.flushTimerFired()
        _ = menu.update(items, title: "again")
        XCTAssertTrue(menu.layoutToSignal(now: start + 16_000_000))
        XCTAssertEqual(menu.signalRequested(now: start + 40_000_000, interval: interval), .now)
        menu.close()
        _ = menu.update(items, title: "after")
        XCTAssertFalse(menu.layoutToSignal(now: start + 80_000_000), "nothing is signalled once closed")
    }
}
