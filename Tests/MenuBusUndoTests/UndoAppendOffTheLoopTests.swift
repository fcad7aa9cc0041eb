#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// Records written off the loop (`UndoStore.submit` with an executor that takes appends), as
/// menubusd runs them: the answer waits for the write, a document's later
/// operations wait their turn, a failure changes nothing, and a
/// compaction's rename never races an append.
final class UndoAppendOffTheLoopTests: XCTestCase {
    let app = "org.example.Editor"

    override func tearDown() {
        UndoFiles.inject = nil
        super.tearDown()
    }

    /// Holds the store's appends, snapshots and finishes until the test runs them (no tail copies off the loop).
    private typealias Disk = ManualDiskExecutor

    private func step(_ name: String, _ size: Int = 1) -> UndoOperation {
        .register(actionName: name, undo: [UInt8](repeating: 1, count: size), redo: [2], mergeKey: "")
    }

    private func reloaded(_ directory: TemporaryDirectory) -> UndoState? {
        let again = UndoStore(stateDirectory: directory.path)
        _ = again.loadAll()
        return again.state(appId: app, documentId: "doc")
    }

    /// Two undo levels and 64 KiB steps, written one by one, until the
    /// journal outgrows the document and a compaction is asked for.
    private func stepsUntilACompaction(_ store: UndoStore, _ disk: Disk) throws -> CompactionJob {
        try store.perform(.setLimit(levels: 2), appId: app, documentId: "doc", now: Time.start)
        var index = 0
        while disk.compactions.isEmpty, index < 200 {
            store.submit(step("Step \(index)", 64 << 10), appId: app, documentId: "doc", now: Time.start) { _ in }
            try disk.writeNext()
            index += 1
        }
        return try XCTUnwrap(disk.compactions.first, "a compaction was asked for")
    }

    private func makeStore() throws -> (TemporaryDirectory, UndoStore, Disk) {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        _ = store.loadAll()
        let disk = Disk(offloading: [.append, .snapshot, .finish])
        store.executor = disk
        // The first step creates the journal, written in place.
        var created: Result<UndoStore.Outcome, UndoError>?
        store.submit(step("First"), appId: app, documentId: "doc", now: Time.start) { created = $0 }
        XCTAssertEqual(try created?.get().state.undoCount, 1)
        XCTAssertTrue(disk.appends.isEmpty)
        return (directory, store, disk)
    }

    func testTheAnswerWaitsForTheWriteAndLaterCallsOfTheDocumentWaitTheirTurn() throws {
        let (directory, store, disk) = try makeStore()
        var answers: [String] = []
        store.submit(step("Second"), appId: app, documentId: "doc", now: Time.start) {
            answers.append("second \((try? $0.get().state.undoCount) ?? -1)")
        }
        store.submit(.undo, appId: app, documentId: "doc", now: Time.start) {
            answers.append("undo \((try? $0.get().move?.actionName) ?? "failed")")
        }
        store.whenIdle(appId: app, documentId: "doc") {
            answers.append("read \(store.state(appId: self.app, documentId: "doc")?.undoCount ?? -1)")
        }
        var other: Result<UndoStore.Outcome, UndoError>?
        store.submit(step("Elsewhere"), appId: app, documentId: "other", now: Time.start) { other = $0 }
        XCTAssertNotNil(other, "another document does not wait")
        XCTAssertEqual(answers, [], "nothing answered before its record is written")
        XCTAssertEqual(disk.appends.count, 1, "one write in flight for the document")
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoCount, 1, "the step is not shown before it is written")
        try disk.writeNext()
        XCTAssertEqual(answers, ["second 2"])
        XCTAssertEqual(disk.appends.count, 1, "the undo started once the step was written")
        try disk.writeNext()
        XCTAssertEqual(answers, ["second 2", "undo Second", "read 1"])
        XCTAssertTrue(disk.appends.isEmpty)
        XCTAssertFalse(store.hasWorkInFlight)
        store.sync()
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
        XCTAssertEqual(reloaded(directory)?.redoActionName, "Second")
    }

    func testAFailedWriteOffTheLoopAnswersStorageFailedAndChangesNothing() throws {
        let (directory, store, disk) = try makeStore()
        UndoFiles.inject = { call, _ in call == "write" ? ENOSPC : nil }
        var answer: Result<UndoStore.Outcome, UndoError>?
        store.submit(step("Lost"), appId: app, documentId: "doc", now: Time.start) { answer = $0 }
        try disk.writeNext()
        XCTAssertThrowsError(try answer?.get()) { error in
            guard let error = error as? UndoError, case .storage(let code) = error.kind else { return XCTFail("\(error)") }
            XCTAssertEqual(code, ENOSPC)
            XCTAssertTrue(error.message.contains("'doc'") && error.message.contains("write"), error.message)
        }
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoCount, 1)
        UndoFiles.inject = nil
        store.submit(step("Kept"), appId: app, documentId: "doc", now: Time.start) { answer = $0 }
        try disk.writeNext()
        XCTAssertEqual(try answer?.get().state.undoActionName, "Kept")
        store.sync()
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testAWriteAndItsCutFailingOffTheLoopBreakTheJournalAndTheNextStepRewritesIt() throws {
        let (directory, store, disk) = try makeStore()
        var calls: [String] = []
        var failing = true
        UndoFiles.inject = { call, _ in
            calls.append(call)
            return failing && (call == "write" || call == "ftruncate") ? EIO : nil
        }
        var answer: Result<UndoStore.Outcome, UndoError>?
        store.submit(step("Torn"), appId: app, documentId: "doc", now: Time.start) { answer = $0 }
        try disk.writeNext()
        XCTAssertThrowsError(try answer?.get())
        failing = false
        calls = []
        store.submit(step("After"), appId: app, documentId: "doc", now: Time.start) { answer = $0 }
        XCTAssertTrue(calls.contains("rename"), "the broken journal was rewritten before the next append")
        try disk.writeNext()
        XCTAssertEqual(try answer?.get().state.undoCount, 2)
        store.sync()
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testTheRenameOfACompactionWaitsForTheAppendInFlightAndTheNextAppendWaitsForIt() throws {
        let (directory, store, disk) = try makeStore()
        let job = try stepsUntilACompaction(store, disk)
        let sizeBefore = try directory.size(of: job.journal.fileName)
        disk.queue.sync { UndoJournal.runCompaction(job) }
        var answers: [String] = []
        store.submit(step("During the snapshot"), appId: app, documentId: "doc", now: Time.start) { _ in answers.append("during") }
        try disk.handBack(.snapshot)
        XCTAssertTrue(disk.finishes.isEmpty, "the rename waits for the append in flight")
        try disk.writeNext()
        XCTAssertEqual(answers, ["during"])
        XCTAssertEqual(disk.finishes.count, 1, "then the rest of the tail and the rename go off the loop")
        store.submit(step("During the rename"), appId: app, documentId: "doc", now: Time.start) { _ in answers.append("rename") }
        XCTAssertTrue(disk.appends.isEmpty, "an append waits for the rename")
        disk.queue.sync { UndoJournal.runFinish(job) }
        XCTAssertTrue(job.renamed)
        try disk.handBack(.finish)
        XCTAssertTrue(store.takeProblems().isEmpty)
        XCTAssertFalse(job.journal.compacting)
        try disk.writeNext()
        XCTAssertEqual(answers, ["during", "rename"])
        XCTAssertLessThan(try directory.size(of: job.journal.fileName), sizeBefore, "compacted")
        XCTAssertEqual(try directory.journalNames().filter { $0.hasSuffix(".tmp") }, [], "no temporary file left")
        store.sync()
        let state = try XCTUnwrap(reloaded(directory))
        XCTAssertEqual(state, store.state(appId: app, documentId: "doc"))
        XCTAssertEqual(state.undoActionName, "During the rename")
    }

    func testAppendsFasterThanACompactionWaitForItOnceTheJournalOutgrowsTheDocument() throws {
        let (directory, store, disk) = try makeStore()
        let job = try stepsUntilACompaction(store, disk)
        let live = try XCTUnwrap(store.documents.values.first?.stack.totalBytes)
        // The snapshot is slow (not run yet); the app goes on appending.
        var answered = 0
        let appended = try appendUntilHeld(store, disk) { answered += 1 }
        XCTAssertLessThan(appended, 200, "the appends were held")
        XCTAssertTrue(disk.appends.isEmpty, "the last submitted append waits, not written")
        XCTAssertEqual(answered, appended - 1)
        let grown = job.journal.size - job.startSize
        XCTAssertGreaterThan(grown, live / 2, "held once the journal grew by more than half the live document …")
        XCTAssertLessThan(grown, live / 2 + (64 << 10) + (128 << 10), "… and not much further")
        // The snapshot finishes: the last tail and the rename go at once (no
        // tail round off the loop), the held append after them.
        disk.queue.sync { UndoJournal.runCompaction(job) }
        try disk.handBack(.snapshot)
        XCTAssertEqual(disk.finishes.count, 1)
        XCTAssertEqual(job.tailRounds, 0)
        disk.queue.sync { UndoJournal.runFinish(job) }
        try disk.handBack(.finish)
        XCTAssertTrue(store.takeProblems().isEmpty)
        XCTAssertEqual(disk.appends.count, 1, "the held append is written now")
        try disk.writeNext()
        XCTAssertEqual(answered, appended)
        XCTAssertFalse(store.hasWorkInFlight)
        store.sync()
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoActionName, "Fast \(appended - 1)")
    }

    /// Appends 64 KiB steps, each written, until the compaction holds them;
    /// returns how many were submitted (the last one waits, unwritten).
    private func appendUntilHeld(_ store: UndoStore, _ disk: Disk, answered: @escaping () -> Void = {}) throws -> Int {
        var appended = 0
        while appended < 200 {
            store.submit(step("Fast \(appended)", 64 << 10), appId: app, documentId: "doc", now: Time.start) { _ in answered() }
            appended += 1
            if disk.appends.isEmpty { break }
            try disk.writeNext()
        }
        return appended
    }

    func testAFinishWaitingForTheAppendInFlightIsNotHeldBehindIt() throws {
        let (directory, store, disk) = try makeStore()
        let job = try stepsUntilACompaction(store, disk)
        // An append in flight when the snapshot is done: the finish waits for it …
        store.submit(step("Large", 256 << 10), appId: app, documentId: "doc", now: Time.start) { _ in }
        XCTAssertEqual(disk.appends.count, 1)
        disk.queue.sync { UndoJournal.runCompaction(job) }
        try disk.handBack(.snapshot)
        XCTAssertTrue(disk.finishes.isEmpty)
        // … and that append grows the journal past the hold's mark: the
        // queued finish must still come next, not wait behind a hold.
        try disk.writeNext()
        XCTAssertEqual(disk.finishes.count, 1, "the finish runs once the append is written")
        disk.queue.sync { UndoJournal.runFinish(job) }
        try disk.handBack(.finish)
        XCTAssertTrue(store.takeProblems().isEmpty)
        XCTAssertFalse(store.hasWorkInFlight)
        store.submit(step("After"), appId: app, documentId: "doc", now: Time.start) { _ in }
        XCTAssertEqual(disk.appends.count, 1, "appends go straight to the disk again")
        try disk.writeNext()
        store.sync()
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testASnapshotFailingWhileAppendsAreHeldLetsThemGo() throws {
        let (directory, store, disk) = try makeStore()
        let job = try stepsUntilACompaction(store, disk)
        let appended = try appendUntilHeld(store, disk)
        XCTAssertLessThan(appended, 200, "the appends were held")
        XCTAssertTrue(disk.appends.isEmpty)
        job.error = .io("write", job.temporary)
        try disk.handBack(.snapshot)
        XCTAssertTrue(disk.finishes.isEmpty, "nothing to rename")
        XCTAssertEqual(store.takeProblems().map(\.activity), ["compaction"])
        XCTAssertFalse(job.journal.compacting)
        XCTAssertEqual(disk.appends.count, 1, "the held append is written now")
        try disk.writeNext()
        XCTAssertFalse(store.hasWorkInFlight)
        XCTAssertEqual(try directory.journalNames().filter { $0.hasSuffix(".tmp") }, [], "the temporary file is removed")
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoActionName, "Fast \(appended - 1)")
    }

    func testClosingOpenGroupsComesAfterTheOperationsInFlightWithoutWaitingForThem() throws {
        let (_, store, disk) = try makeStore()
        disk.onWait = { XCTFail("the loop waited for the disk") }
        store.submit(.beginGroup(actionName: "Replace All"), appId: app, documentId: "doc", now: Time.start) { _ in }
        store.submit(step("Inside"), appId: app, documentId: "doc", now: Time.start) { _ in }
        var closed: [UndoState] = []
        store.closeOpenGroups(appId: app, now: Time.start) { _, state in closed.append(state) }
        XCTAssertEqual(closed, [], "the operations in flight land first")
        while !disk.appends.isEmpty { try disk.writeNext() }
        XCTAssertEqual(closed.map(\.groupDepth), [0], "then the group the app opened before it left is closed")
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoActionName, "Replace All")
        XCTAssertFalse(store.hasWorkInFlight)
    }
}
