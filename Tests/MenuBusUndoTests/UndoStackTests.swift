import XCTest
@testable import MenuBusUndo
import MenuBusModel

final class UndoStackTests: XCTestCase {
    // MARK: Steps, undo and redo

    func testRegisteredStepUndoesAndRedoesWithItsPayloads() throws {
        var stack = UndoStack()
        XCTAssertEqual(try stack.register(actionName: "Bold", undo: [1], redo: [2]), 1)
        XCTAssertEqual(try stack.undo(), UndoStack.Move(actionName: "Bold", payloads: [[1]]))
        XCTAssertEqual(stack.state.undoCount, 0)
        XCTAssertEqual(stack.state.redoCount, 1)
        XCTAssertEqual(try stack.redo(), UndoStack.Move(actionName: "Bold", payloads: [[2]]))
        XCTAssertEqual(stack.state.undoCount, 1)
        XCTAssertEqual(stack.state.redoCount, 0)
    }

    func testUndoAndRedoWalkTheStepsInOrder() throws {
        var stack = UndoStack()
        for name in ["A", "B", "C"] { try stack.register(actionName: name, undo: [], redo: []) }
        XCTAssertEqual(try stack.undo().actionName, "C")
        XCTAssertEqual(try stack.undo().actionName, "B")
        XCTAssertEqual(try stack.redo().actionName, "B")
        XCTAssertEqual(try stack.undo().actionName, "B")
        XCTAssertEqual(try stack.undo().actionName, "A")
        XCTAssertEqual(try stack.redo().actionName, "A")
        XCTAssertEqual(stack.state.undoCount, 1)
        XCTAssertEqual(stack.state.redoCount, 2)
    }

    func testNothingToUndoAndNothingToRedoOnAnEmptyStack() {
        var stack = UndoStack()
        XCTAssertThrowsError(try stack.undo()) { XCTAssertEqual(($0 as? UndoError)?.kind, .nothingToUndo) }
        XCTAssertThrowsError(try stack.redo()) { XCTAssertEqual(($0 as? UndoError)?.kind, .nothingToRedo) }
        XCTAssertEqual(stack, UndoStack())
    }

    func testNothingToRedoAtTheTopAndNothingToUndoAtTheBottom() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [2])
        XCTAssertThrowsError(try stack.redo()) { XCTAssertEqual(($0 as? UndoError)?.kind, .nothingToRedo) }
        _ = try stack.undo()
        XCTAssertThrowsError(try stack.undo()) { XCTAssertEqual(($0 as? UndoError)?.kind, .nothingToUndo) }
    }

    func testNewStepClearsRedo() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        try stack.register(actionName: "B", undo: [2], redo: [2])
        _ = try stack.undo()
        _ = try stack.undo()
        XCTAssertEqual(stack.state.redoCount, 2)
        try stack.register(actionName: "C", undo: [3], redo: [3])
        XCTAssertEqual(stack.state.redoCount, 0)
        XCTAssertFalse(stack.state.canRedo)
        XCTAssertEqual(stack.liveSteps.map(\.actionName), ["C"])
        XCTAssertEqual(stack.liveBytes, stack.liveSteps.reduce(0) { $0 + $1.cost })
    }

    func testEmptyPayloadsKeepTheirPlaceInTheLists() throws {
        var stack = UndoStack()
        try stack.register(actionName: "T", undo: [], redo: [9], mergeKey: "k")
        try stack.register(actionName: "T", undo: [8], redo: [], mergeKey: "k")
        XCTAssertEqual(try stack.undo().payloads, [[8], []])
        XCTAssertEqual(try stack.redo().payloads, [[9], []])
    }

    // MARK: Merging

    func testConsecutiveStepsWithTheSameMergeKeyMergeIntoOne() throws {
        var stack = UndoStack()
        for (index, letter) in "abc".utf8.enumerated() {
            let count = try stack.register(actionName: "Typing", undo: [UInt8(index)], redo: [letter], mergeKey: "typing")
            XCTAssertEqual(count, 1)
        }
        XCTAssertEqual(stack.state.undoCount, 1)
        XCTAssertEqual(stack.liveSteps.first?.registrationCount, 3)
        XCTAssertEqual(try stack.undo(), UndoStack.Move(actionName: "Typing", payloads: [[2], [1], [0]]))
        XCTAssertEqual(try stack.redo(), UndoStack.Move(actionName: "Typing", payloads: [[97], [98], [99]]))
    }

    func testDifferentOrEmptyMergeKeysDoNotMerge() throws {
        var stack = UndoStack()
        try stack.register(actionName: "Typing", undo: [1], redo: [1], mergeKey: "typing")
        try stack.register(actionName: "Typing", undo: [2], redo: [2], mergeKey: "other")
        try stack.register(actionName: "Typing", undo: [3], redo: [3], mergeKey: "")
        try stack.register(actionName: "Typing", undo: [4], redo: [4], mergeKey: "")
        XCTAssertEqual(stack.state.undoCount, 4)
    }

    func testMergingClearsRedoFirstAndThenJoinsTheNewTop() throws {
        var stack = UndoStack()
        try stack.register(actionName: "Typing", undo: [1], redo: [1], mergeKey: "typing")
        try stack.register(actionName: "Paste", undo: [2], redo: [2])
        _ = try stack.undo()
        try stack.register(actionName: "Typing", undo: [3], redo: [3], mergeKey: "typing")
        XCTAssertEqual(stack.state.undoCount, 1)
        XCTAssertEqual(stack.state.redoCount, 0)
        XCTAssertEqual(try stack.undo().payloads, [[3], [1]])
    }

    func testMergedStepKeepsItsFirstName() throws {
        var stack = UndoStack()
        try stack.register(actionName: "Typing", undo: [1], redo: [1], mergeKey: "k")
        try stack.register(actionName: "Delete", undo: [2], redo: [2], mergeKey: "k")
        XCTAssertEqual(stack.state.undoTitle, "Undo Typing")
    }

    func testMergeNeverJoinsTheStepAtTheCleanMark() throws {
        var stack = UndoStack()
        try stack.register(actionName: "Typing", undo: [1], redo: [1], mergeKey: "typing")
        try stack.markClean()
        try stack.register(actionName: "Typing", undo: [2], redo: [2], mergeKey: "typing")
        XCTAssertEqual(stack.state.undoCount, 2)
        XCTAssertFalse(stack.state.clean)
        try stack.register(actionName: "Typing", undo: [3], redo: [3], mergeKey: "typing")
        XCTAssertEqual(stack.state.undoCount, 2, "merges above the mark again")
        XCTAssertEqual(try stack.undo().payloads, [[3], [2]])
        XCTAssertTrue(stack.state.clean, "one Undo returns to the saved text")
    }

    // MARK: Groups

    func testNestedGroupsMakeOneStepNamedByTheOutermost() throws {
        var stack = UndoStack()
        try stack.beginGroup(actionName: "Replace All")
        try stack.register(actionName: "Replace", undo: [1], redo: [10])
        try stack.beginGroup(actionName: "Inner")
        XCTAssertEqual(stack.groupDepth, 2)
        try stack.register(actionName: "Replace", undo: [2], redo: [20])
        try stack.endGroup()
        try stack.register(actionName: "Replace", undo: [3], redo: [30])
        XCTAssertEqual(stack.state.undoCount, 0, "nothing is added before the outermost group ends")
        try stack.endGroup()
        XCTAssertEqual(stack.state.undoCount, 1)
        XCTAssertEqual(stack.state.undoTitle, "Undo Replace All")
        XCTAssertEqual(try stack.undo(), UndoStack.Move(actionName: "Replace All", payloads: [[3], [2], [1]]))
        XCTAssertEqual(try stack.redo(), UndoStack.Move(actionName: "Replace All", payloads: [[10], [20], [30]]))
    }

    func testEmptyGroupAddsNothingAndKeepsRedo() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        _ = try stack.undo()
        try stack.beginGroup(actionName: "G")
        try stack.beginGroup(actionName: "H")
        try stack.endGroup()
        try stack.endGroup()
        XCTAssertEqual(stack.state.undoCount, 0)
        XCTAssertEqual(stack.state.redoCount, 1)
        XCTAssertTrue(stack.state.canRedo)
    }

    func testGroupWithStepsClearsRedoWhenItEnds() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        _ = try stack.undo()
        try stack.beginGroup(actionName: "G")
        try stack.register(actionName: "x", undo: [2], redo: [2])
        try stack.endGroup()
        XCTAssertEqual(stack.state.redoCount, 0)
        XCTAssertEqual(stack.liveSteps.map(\.actionName), ["G"])
    }

    func testMergeKeyNeverMergesAcrossAGroupBoundary() throws {
        var stack = UndoStack()
        try stack.register(actionName: "Typing", undo: [1], redo: [1], mergeKey: "typing")
        try stack.beginGroup(actionName: "Group")
        try stack.register(actionName: "Typing", undo: [2], redo: [2], mergeKey: "typing")
        try stack.register(actionName: "Typing", undo: [3], redo: [3], mergeKey: "typing")
        try stack.endGroup()
        try stack.register(actionName: "Typing", undo: [4], redo: [4], mergeKey: "typing")
        XCTAssertEqual(stack.liveSteps.map(\.actionName), ["Typing", "Group", "Typing"])
        XCTAssertEqual(stack.liveSteps.map(\.registrationCount), [1, 2, 1])
        XCTAssertEqual(try stack.undo().payloads, [[4]])
        XCTAssertEqual(try stack.undo().payloads, [[3], [2]])
    }

    func testEndGroupWithoutBeginIsAnError() throws {
        var stack = UndoStack()
        XCTAssertThrowsError(try stack.endGroup()) { XCTAssertEqual(($0 as? UndoError)?.kind, .noOpenGroup) }
        try stack.beginGroup(actionName: "G")
        try stack.endGroup()
        XCTAssertThrowsError(try stack.endGroup()) { XCTAssertEqual(($0 as? UndoError)?.kind, .noOpenGroup) }
    }

    func testUndoRedoAndMarkCleanAreRefusedWhileAGroupIsOpen() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        try stack.register(actionName: "B", undo: [2], redo: [2])
        _ = try stack.undo()
        try stack.beginGroup(actionName: "G")
        let before = stack
        for attempt in [{ (s: inout UndoStack) in _ = try s.undo() },
                        { (s: inout UndoStack) in _ = try s.redo() },
                        { (s: inout UndoStack) in try s.markClean() }] {
            XCTAssertThrowsError(try attempt(&stack)) { XCTAssertEqual(($0 as? UndoError)?.kind, .groupOpen) }
        }
        XCTAssertEqual(stack, before)
        XCTAssertFalse(stack.state.canUndo)
        XCTAssertFalse(stack.state.canRedo)
        XCTAssertEqual(stack.state.undoTitle, "Undo")
    }

    func testOpenGroupIsNotCleanOnceItHoldsAStep() throws {
        var stack = UndoStack()
        try stack.beginGroup(actionName: "G")
        XCTAssertTrue(stack.state.clean)
        try stack.register(actionName: "x", undo: [1], redo: [1])
        XCTAssertFalse(stack.state.clean)
        try stack.endGroup()
        XCTAssertFalse(stack.state.clean)
        _ = try stack.undo()
        XCTAssertTrue(stack.state.clean)
    }

    func testRegisterInsideAGroupAnswersTheUndoCountBeforeTheGroup() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [], redo: [])
        try stack.beginGroup(actionName: "G")
        XCTAssertEqual(try stack.register(actionName: "x", undo: [], redo: []), 1)
    }

    // MARK: Titles

    func testTitlesNameTheActionOrStayBare() throws {
        var stack = UndoStack()
        XCTAssertEqual(stack.state.undoTitle, "Undo")
        XCTAssertEqual(stack.state.redoTitle, "Redo")
        try stack.register(actionName: "Typing", undo: [], redo: [])
        try stack.register(actionName: "", undo: [], redo: [])
        XCTAssertEqual(stack.state.undoTitle, "Undo")
        XCTAssertEqual(stack.state.undoActionName, "")
        _ = try stack.undo()
        XCTAssertEqual(stack.state.undoTitle, "Undo Typing")
        XCTAssertEqual(stack.state.redoTitle, "Redo")
        _ = try stack.undo()
        XCTAssertEqual(stack.state.redoTitle, "Redo Typing")
        XCTAssertEqual(stack.state.summary, UndoSummary(canUndo: false, canRedo: true, undoActionName: nil,
                                                        redoActionName: "Typing"))
    }

    // MARK: Clean mark

    func testNewAndClearedStacksAreClean() throws {
        var stack = UndoStack()
        XCTAssertTrue(stack.state.clean)
        try stack.register(actionName: "A", undo: [1], redo: [1])
        XCTAssertFalse(stack.state.clean)
        stack.clear()
        XCTAssertTrue(stack.state.clean)
    }

    func testUndoingOrRedoingBackToTheMarkIsCleanAgain() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        try stack.register(actionName: "B", undo: [2], redo: [2])
        try stack.markClean()
        XCTAssertTrue(stack.state.clean)
        _ = try stack.undo()
        XCTAssertFalse(stack.state.clean)
        _ = try stack.redo()
        XCTAssertTrue(stack.state.clean)
        try stack.register(actionName: "C", undo: [3], redo: [3])
        XCTAssertFalse(stack.state.clean)
        _ = try stack.undo()
        XCTAssertTrue(stack.state.clean)
    }

    func testMarkInTheRedoStepsIsReachedByRedoing() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        try stack.register(actionName: "B", undo: [2], redo: [2])
        try stack.markClean()
        _ = try stack.undo()
        _ = try stack.undo()
        XCTAssertFalse(stack.state.clean)
        _ = try stack.redo()
        _ = try stack.redo()
        XCTAssertTrue(stack.state.clean)
    }

    func testMarkBecomesUnreachableWhenANewStepClearsItsRedoStep() throws {
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [1])
        try stack.markClean()
        _ = try stack.undo()
        try stack.register(actionName: "B", undo: [2], redo: [2])
        XCTAssertNil(stack.cleanUndoCount)
        XCTAssertFalse(stack.state.clean)
        _ = try stack.undo()
        XCTAssertFalse(stack.state.clean, "the marked state is gone: never clean until marked again")
        try stack.markClean()
        XCTAssertTrue(stack.state.clean)
    }

    func testMarkDroppedByTheLimitIsUnreachable() throws {
        var stack = UndoStack()
        try stack.markClean()
        try stack.setLimit(levels: 2)
        try stack.register(actionName: "A", undo: [], redo: [])
        try stack.register(actionName: "B", undo: [], redo: [])
        XCTAssertEqual(stack.cleanUndoCount, 0, "undoing both steps still reaches the mark")
        try stack.register(actionName: "C", undo: [], redo: [])
        XCTAssertNil(stack.cleanUndoCount)
        _ = try stack.undo()
        _ = try stack.undo()
        XCTAssertFalse(stack.state.clean)
    }

    // MARK: Limits and quota

    func testLimitDropsTheOldestStepsAndCountsThem() throws {
        var stack = UndoStack()
        try stack.setLimit(levels: 3)
        for index in 0..<10 { try stack.register(actionName: "S\(index)", undo: [UInt8(index)], redo: []) }
        XCTAssertEqual(stack.state.undoCount, 3)
        XCTAssertEqual(stack.state.dropped, 7)
        XCTAssertEqual(stack.liveSteps.map(\.actionName), ["S7", "S8", "S9"])
        XCTAssertEqual(try stack.undo().payloads, [[9]])
    }

    func testLoweringTheLimitDropsAtOnceBothOldestUndoAndFarthestRedo() throws {
        var stack = UndoStack()
        for index in 0..<6 { try stack.register(actionName: "S\(index)", undo: [], redo: []) }
        for _ in 0..<3 { _ = try stack.undo() }
        try stack.setLimit(levels: 2)
        XCTAssertEqual(stack.state.undoCount, 2)
        XCTAssertEqual(stack.state.redoCount, 2)
        XCTAssertEqual(stack.state.dropped, 2)
        XCTAssertEqual(stack.liveSteps.map(\.actionName), ["S1", "S2", "S3", "S4"])
        try stack.setLimit(levels: 0)
        try stack.register(actionName: "T", undo: [], redo: [])
        XCTAssertEqual(stack.state.undoCount, 3, "0 is unlimited again")
    }

    func testNegativeLevelsAreAnInvalidArgument() {
        var stack = UndoStack()
        XCTAssertThrowsError(try stack.setLimit(levels: -1)) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .invalidArgument)
            XCTAssertEqual(($0 as? UndoError)?.field, "levels")
        }
    }

    func testQuotaDropsTheOldestStepsAndCountsThem() throws {
        let step = UndoStep(actionName: "S", mergeKey: "", undo: [UInt8](repeating: 1, count: 1000), redo: [])
        var stack = UndoStack(limits: UndoLimits(bytesPerDocument: step.cost * 4))
        for _ in 0..<10 {
            try stack.register(actionName: "S", undo: [UInt8](repeating: 1, count: 1000), redo: [])
        }
        XCTAssertEqual(stack.state.undoCount, 4)
        XCTAssertEqual(stack.state.dropped, 6)
        XCTAssertEqual(stack.liveBytes, step.cost * 4)
        XCTAssertLessThanOrEqual(stack.liveBytes, stack.limits.bytesPerDocument)
    }

    func testStepLargerThanTheQuotaIsRefused() {
        var stack = UndoStack(limits: UndoLimits(bytesPerDocument: 500))
        XCTAssertThrowsError(try stack.register(actionName: "Big", undo: [UInt8](repeating: 0, count: 600), redo: [])) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .limitExceeded(.bytesPerDocument))
            XCTAssertTrue("\($0)".contains("bytes per document"))
        }
        XCTAssertEqual(stack, UndoStack(limits: UndoLimits(bytesPerDocument: 500)))
    }

    func testGroupThatWouldOutgrowTheQuotaIsRefusedAndKeepsWhatItHas() throws {
        var stack = UndoStack(limits: UndoLimits(bytesPerDocument: 1000))
        try stack.beginGroup(actionName: "G")
        try stack.register(actionName: "", undo: [UInt8](repeating: 0, count: 400), redo: [])
        try stack.register(actionName: "", undo: [UInt8](repeating: 0, count: 400), redo: [])
        XCTAssertThrowsError(try stack.register(actionName: "", undo: [UInt8](repeating: 0, count: 400), redo: [])) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .limitExceeded(.bytesPerDocument))
        }
        try stack.endGroup()
        XCTAssertEqual(stack.liveSteps.first?.registrationCount, 2)
    }

    func testMergeThatWouldOutgrowTheQuotaStartsANewStep() throws {
        var stack = UndoStack(limits: UndoLimits(bytesPerDocument: 1000))
        let typing = UndoOperation.register(actionName: "Typing", undo: [UInt8](repeating: 0, count: 400), redo: [],
                                            mergeKey: "t")
        try stack.perform(typing)
        try stack.perform(typing)
        XCTAssertEqual(stack.liveSteps.map(\.registrationCount), [2])
        try stack.perform(typing)
        XCTAssertEqual(stack.liveSteps.map(\.registrationCount), [1], "a new step, and the full one dropped for it")
        XCTAssertEqual(stack.state.dropped, 1)
        try stack.perform(typing)
        XCTAssertEqual(stack.liveSteps.map(\.registrationCount), [2])
        XCTAssertEqual(stack.state.dropped, 1)
    }

    func testInputBoundsAreRefusedNamingTheBound() throws {
        var stack = UndoStack()
        let cases: [(UndoOperation, UndoLimits.Bound, String)] = [
            (.register(actionName: "", undo: [UInt8](repeating: 0, count: UndoLimits.defaultPayloadBytesPerStep),
                       redo: [1], mergeKey: ""), .payloadBytesPerStep, "undoData"),
            (.register(actionName: String(repeating: "n", count: UndoLimits.maxActionNameBytes + 1), undo: [], redo: [],
                       mergeKey: ""), .actionNameBytes, "actionName"),
            (.register(actionName: "", undo: [], redo: [], mergeKey: String(repeating: "k", count: UndoLimits.maxMergeKeyBytes + 1)),
             .mergeKeyBytes, "options.merge-key"),
            (.beginGroup(actionName: String(repeating: "é", count: UndoLimits.maxActionNameBytes / 2 + 1)),
             .actionNameBytes, "actionName"),
        ]
        for (operation, bound, field) in cases {
            XCTAssertThrowsError(try stack.perform(operation)) { error in
                XCTAssertEqual((error as? UndoError)?.kind, .limitExceeded(bound))
                XCTAssertEqual((error as? UndoError)?.field, field)
                XCTAssertTrue("\(error)".contains(bound.rawValue), "\(error)")
            }
        }
        XCTAssertEqual(stack, UndoStack())
        XCTAssertNoThrow(try stack.register(actionName: String(repeating: "n", count: UndoLimits.maxActionNameBytes),
                                            undo: [UInt8](repeating: 0, count: UndoLimits.defaultPayloadBytesPerStep), redo: []))
    }

    func testGroupDepthAndStepsPerGroupAreBounded() throws {
        var stack = UndoStack()
        for _ in 0..<UndoLimits.maxGroupDepth { try stack.beginGroup(actionName: "G") }
        XCTAssertThrowsError(try stack.beginGroup(actionName: "G")) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .limitExceeded(.groupDepth))
        }
        for _ in 0..<UndoLimits.maxStepsPerGroup { try stack.register(actionName: "", undo: [], redo: []) }
        XCTAssertThrowsError(try stack.register(actionName: "", undo: [], redo: [])) {
            XCTAssertEqual(($0 as? UndoError)?.kind, .limitExceeded(.stepsPerGroup))
        }
        for _ in 0..<UndoLimits.maxGroupDepth { try stack.endGroup() }
        XCTAssertEqual(stack.state.undoCount, 1)
        XCTAssertEqual(stack.liveSteps.first?.registrationCount, UndoLimits.maxStepsPerGroup)
    }

    func testReplayingSkipsTheInputBoundsButStillDrops() throws {
        var stack = UndoStack(limits: UndoLimits(payloadBytesPerStep: 10))
        let big = UndoOperation.register(actionName: "", undo: [UInt8](repeating: 0, count: 20), redo: [], mergeKey: "")
        XCTAssertThrowsError(try stack.perform(big))
        XCTAssertNoThrow(try stack.perform(big, checkingInput: false))
        XCTAssertEqual(stack.state.undoCount, 1)
    }

    func testClearEmptiesEverythingAndKeepsTheLevels() throws {
        var stack = UndoStack()
        try stack.setLimit(levels: 1)
        try stack.register(actionName: "A", undo: [], redo: [])
        try stack.register(actionName: "B", undo: [], redo: [])
        try stack.beginGroup(actionName: "G")
        stack.clear()
        XCTAssertEqual(stack.state, UndoState(canUndo: false, canRedo: false, undoCount: 0, redoCount: 0,
                                              clean: true, dropped: 0))
        XCTAssertEqual(stack.groupDepth, 0)
        XCTAssertEqual(stack.levels, 1)
        XCTAssertEqual(stack.liveBytes, 0)
    }

    func testManyDropsKeepTheNewestStepsInOrder() throws {
        var stack = UndoStack()
        try stack.setLimit(levels: 100)
        for index in 0..<10_000 { try stack.register(actionName: "\(index)", undo: [], redo: []) }
        XCTAssertEqual(stack.state.dropped, 9_900)
        XCTAssertEqual(stack.liveSteps.map(\.actionName), (9_900..<10_000).map { "\($0)" })
        var undone: [String] = []
        while stack.state.canUndo { undone.append(try stack.undo().actionName) }
        XCTAssertEqual(undone, (9_900..<10_000).reversed().map { "\($0)" })
    }

    // MARK: Snapshots

    func testRestoringRefusesValuesThatDoNotFit() throws {
        let steps = [UndoStep(actionName: "A", mergeKey: "", undo: [1], redo: [2])]
        XCTAssertNil(UndoStack(limits: UndoLimits(), steps: steps, undoCount: 2, cleanUndoCount: nil, dropped: 0, levels: 0))
        XCTAssertNil(UndoStack(limits: UndoLimits(), steps: steps, undoCount: 1, cleanUndoCount: 3, dropped: 0, levels: 0))
        XCTAssertNil(UndoStack(limits: UndoLimits(), steps: steps, undoCount: 1, cleanUndoCount: nil, dropped: -1, levels: 0))
        var stack = UndoStack()
        try stack.register(actionName: "A", undo: [1], redo: [2])
        XCTAssertEqual(UndoStack(limits: UndoLimits(), steps: steps, undoCount: 1, cleanUndoCount: 0, dropped: 0, levels: 0),
                       stack)
    }

    func testStepEncodingIsValidatedWhenRestored() {
        let step = UndoStep(actionName: "A", mergeKey: "", undo: [1, 2], redo: [3])
        XCTAssertNotNil(UndoStep(actionName: "A", mergeKey: "", registrationCount: 1, encoded: step.encoded))
        XCTAssertNil(UndoStep(actionName: "A", mergeKey: "", registrationCount: 2, encoded: step.encoded))
        XCTAssertNil(UndoStep(actionName: "A", mergeKey: "", registrationCount: 1, encoded: step.encoded.dropLast()))
        XCTAssertNil(UndoStep(actionName: "A", mergeKey: "", registrationCount: 1, encoded: step.encoded + [0]))
        XCTAssertNotNil(UndoStep(actionName: "A", mergeKey: "", registrationCount: 0, encoded: []))
    }
}
