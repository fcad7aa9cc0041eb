import Foundation
import XCTest

/// The shim core's own tests (shims/tests), as `make shims` builds them:
/// the core linked with a fake widget, against a fake menubusd on a
/// private bus, no app. Each GLib test case is one test here, run alone
/// (`core-test -p PATH`) in the plain build and again under
/// AddressSanitizer and UBSan (`core-test-asan`, where a leak or undefined
/// behaviour fails the case); a failure shows the program's output.
final class ShimCoreTests: XCTestCase {
    static let folder = Repository.root.appendingPathComponent(".build/shims/tests")
    static let builds = ["core-test", "core-test-asan"]

    /// The cases this file runs; a case of the program's that is not here fails
    /// testEveryCaseHasATest.
    static let cases = [
        "/menu/present-does-not-wait", "/menu/late-items-reach-changed", "/menu/read-ahead-shows-at-once",
        "/menu/chosen-item-is-activated", "/menu/item-chosen-before-presentation", "/menu/close-dismisses",
        "/menu/menubusd-changes-and-closes", "/menu/omitted-commands",
        "/live/presented-then-closed", "/live/empty-and-failed", "/live/closed-before-presented", "/live/daemon-goes",
        "/hostile/replies", "/hostile/signals", "/hostile/signals-of-others-are-ignored",
        "/hostile/lost-context-is-not-retried-in-a-loop", "/hostile/never-answered", "/hostile/replies-after-ten-seconds",
        "/field/focus-publishes-context", "/field/long-selection-is-not-sent", "/field/selection-changes-coalesce",
        "/field/contexts-capped-at-64", "/field/free-removes-context", "/field/clipboard-types-are-sent",
        "/client/own-undo-goes-to-the-widget", "/client/show-edit-menu-when-focused", "/client/answers-only-menubusd", "/client/serves-menubusd",
        "/daemon/vanishes-mid-call-and-returns", "/daemon/owner-replaced-mid-call", "/daemon/absent-passes-through",
        "/shim/disabled-by-environment", "/shim/excluded-by-config", "/shim/disable-zero-keeps-it-on",
        "/identity/late-undo-reaches-no-new-field", "/identity/late-menu-reaches-no-new-field",
        "/identity/late-update-reaches-no-new-field",
        "/undo/undo-and-redo-apply-the-right-edits", "/undo/backspace-merges", "/undo/foreign-payloads-are-not-applied",
        "/shortcut/asks-then-chooses", "/shortcut/read-ahead-chooses-at-once", "/shortcut/other-keys-stay-unused",
        "/shortcut/selection-moved-before-answer", "/shortcut/pressed-twice-chooses-once",
        "/bar/pointer-selection-shows-bar", "/bar/no-bar-for-a-caret-or-a-moving-selection", "/bar/goes-with-its-selection",
        "/bar/late-answer-shows-no-bar",
    ]

    /// The built program, or a failure naming how to build it (never a skip).
    private func program(_ name: String) throws -> URL {
        let url = Self.folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestFailure("no \(url.path): run `make shims` to build the shim core's tests")
        }
        return url
    }

    /// Runs one case in each build; skipped as the program skips it.
    private func runCase(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for build in Self.builds {
            let program = try program(build)
            // A leak's report stops at GLib's frames (built without frame
            // pointers); ASAN_OPTIONS=fast_unwind_on_malloc=0 by hand gives the
            // whole stack, but makes the huge layouts' cases too slow to run here.
            let result = try runTool(program.path, ["-p", path], environment: ["ASAN_OPTIONS": "detect_leaks=1"],
                                     timeout: 120)
            let output = "\(build) -p \(path) exited with \(result.status):\n\(result.stdout)\n\(result.stderr)"
            if let skip = result.stdout.split(separator: "\n").first(where: { $0.hasPrefix("ok 1 \(path) # SKIP") }) {
                throw XCTSkip(String(skip))
            }
            XCTAssertEqual(result.status, 0, output, file: file, line: line)
            XCTAssertTrue(result.stdout.split(separator: "\n").contains { $0 == "ok 1 \(path)" }, output,
                          file: file, line: line)
        }
    }

    func testEveryCaseHasATest() throws {
        for build in Self.builds {
            let result = try runTool(try program(build).path, ["-l"], timeout: 60)
            XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
            let listed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("/") }.map(String.init)
            XCTAssertGreaterThan(listed.count, 20, result.stdout)
            XCTAssertEqual(Set(listed).subtracting(Self.cases).sorted(), [], "cases of \(build) with no test here")
            XCTAssertEqual(Set(Self.cases).subtracting(listed).sorted(), [], "tests here of no case of \(build)")
        }
    }

    func testMenuPresentDoesNotWait() throws { try runCase("/menu/present-does-not-wait") }
    func testMenuLateItemsReachChanged() throws { try runCase("/menu/late-items-reach-changed") }
    func testMenuReadAheadShowsAtOnce() throws { try runCase("/menu/read-ahead-shows-at-once") }
    func testMenuChosenItemIsActivated() throws { try runCase("/menu/chosen-item-is-activated") }
    func testMenuItemChosenBeforePresentation() throws { try runCase("/menu/item-chosen-before-presentation") }
    func testMenuCloseDismisses() throws { try runCase("/menu/close-dismisses") }
    func testMenuMenubusdChangesAndCloses() throws { try runCase("/menu/menubusd-changes-and-closes") }
    func testMenuOmittedCommands() throws { try runCase("/menu/omitted-commands") }
    func testLivePresentedThenClosed() throws { try runCase("/live/presented-then-closed") }
    func testLiveEmptyAndFailed() throws { try runCase("/live/empty-and-failed") }
    func testLiveClosedBeforePresented() throws { try runCase("/live/closed-before-presented") }
    func testLiveDaemonGoes() throws { try runCase("/live/daemon-goes") }
    func testHostileNeverAnswered() throws { try runCase("/hostile/never-answered") }
    func testHostileReplies() throws { try runCase("/hostile/replies") }
    func testHostileSignals() throws { try runCase("/hostile/signals") }
    func testHostileSignalsOfOthersAreIgnored() throws { try runCase("/hostile/signals-of-others-are-ignored") }
    func testHostileLostContextIsNotRetriedInALoop() throws { try runCase("/hostile/lost-context-is-not-retried-in-a-loop") }
    func testHostileRepliesAfterTenSeconds() throws { try runCase("/hostile/replies-after-ten-seconds") }
    func testFieldFocusPublishesContext() throws { try runCase("/field/focus-publishes-context") }
    func testFieldLongSelectionIsNotSent() throws { try runCase("/field/long-selection-is-not-sent") }
    func testFieldSelectionChangesCoalesce() throws { try runCase("/field/selection-changes-coalesce") }
    func testFieldContextsCappedAt64() throws { try runCase("/field/contexts-capped-at-64") }
    func testFieldFreeRemovesContext() throws { try runCase("/field/free-removes-context") }
    func testFieldClipboardTypesAreSent() throws { try runCase("/field/clipboard-types-are-sent") }
    func testClientOwnUndoGoesToTheWidget() throws { try runCase("/client/own-undo-goes-to-the-widget") }
    func testClientShowEditMenuWhenFocused() throws { try runCase("/client/show-edit-menu-when-focused") }
    func testClientAnswersOnlyMenubusd() throws { try runCase("/client/answers-only-menubusd") }
    func testClientServesMenubusd() throws { try runCase("/client/serves-menubusd") }
    func testDaemonVanishesMidCallAndReturns() throws { try runCase("/daemon/vanishes-mid-call-and-returns") }
    func testDaemonOwnerReplacedMidCall() throws { try runCase("/daemon/owner-replaced-mid-call") }
    func testDaemonAbsentPassesThrough() throws { try runCase("/daemon/absent-passes-through") }
    func testShimDisabledByEnvironment() throws { try runCase("/shim/disabled-by-environment") }
    func testShimExcludedByConfig() throws { try runCase("/shim/excluded-by-config") }
    func testShimDisableZeroKeepsItOn() throws { try runCase("/shim/disable-zero-keeps-it-on") }
    func testIdentityLateUndoReachesNoNewField() throws { try runCase("/identity/late-undo-reaches-no-new-field") }
    func testIdentityLateMenuReachesNoNewField() throws { try runCase("/identity/late-menu-reaches-no-new-field") }
    func testIdentityLateUpdateReachesNoNewField() throws { try runCase("/identity/late-update-reaches-no-new-field") }
    func testUndoUndoAndRedoApplyTheRightEdits() throws { try runCase("/undo/undo-and-redo-apply-the-right-edits") }
    func testUndoBackspaceMerges() throws { try runCase("/undo/backspace-merges") }
    func testUndoForeignPayloadsAreNotApplied() throws { try runCase("/undo/foreign-payloads-are-not-applied") }
    func testShortcutAsksThenChooses() throws { try runCase("/shortcut/asks-then-chooses") }
    func testShortcutReadAheadChoosesAtOnce() throws { try runCase("/shortcut/read-ahead-chooses-at-once") }
    func testShortcutOtherKeysStayUnused() throws { try runCase("/shortcut/other-keys-stay-unused") }
    func testShortcutSelectionMovedBeforeAnswer() throws { try runCase("/shortcut/selection-moved-before-answer") }
    func testShortcutPressedTwiceChoosesOnce() throws { try runCase("/shortcut/pressed-twice-chooses-once") }
    func testBarPointerSelectionShowsBar() throws { try runCase("/bar/pointer-selection-shows-bar") }
    func testBarNoBarForACaretOrAMovingSelection() throws { try runCase("/bar/no-bar-for-a-caret-or-a-moving-selection") }
    func testBarGoesWithItsSelection() throws { try runCase("/bar/goes-with-its-selection") }
    func testBarLateAnswerShowsNoBar() throws { try runCase("/bar/late-answer-shows-no-bar") }
}
