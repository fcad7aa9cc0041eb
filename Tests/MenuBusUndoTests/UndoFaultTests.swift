#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// The journal's file calls made to fail through the fault-injection seam
/// (`UndoFiles.inject`): refused with the document and the cause named,
/// nothing acknowledged lost, and a failed fdatasync never retried.
final class UndoFaultTests: XCTestCase {
    let app = "org.example.Editor"
    private var calls: [(call: String, path: String)] = []

    override func tearDown() {
        UndoFiles.inject = nil
        super.tearDown()
    }

    /// Fails `failing` calls with `code` while `active()` is true; records every call.
    private func inject(_ failing: Set<String>, _ code: Int32 = ENOSPC, while active: @escaping () -> Bool = { true }) {
        calls = []
        UndoFiles.inject = { [unowned self] call, path in
            calls.append((call, path))
            return failing.contains(call) && active() ? code : nil
        }
    }

    private func register(_ store: UndoStore, _ index: Int, document: String = "doc") throws {
        try store.perform(.register(actionName: "Step \(index)", undo: [UInt8(index)], redo: [UInt8(index)], mergeKey: ""),
                          appId: app, documentId: document, now: Time.start)
    }

    /// A store over a new directory, read, with `steps` steps in "doc".
    private func makeStore(steps: Int = 0) throws -> (TemporaryDirectory, UndoStore) {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        _ = store.loadAll()
        for index in 0..<steps { try register(store, index + 1) }
        return (directory, store)
    }

    /// Registers 64 KiB steps in "doc" (two levels kept) until the store asks `jobs` for a compaction.
    private func registerUntilCompaction(_ store: UndoStore, _ jobs: () -> [CompactionJob]) throws -> CompactionJob {
        try store.perform(.setLimit(levels: 2), appId: app, documentId: "doc", now: Time.start)
        var index = 0
        while jobs().isEmpty, index < 200 {
            try store.perform(.register(actionName: "Step \(index)", undo: big, redo: [1], mergeKey: ""),
                              appId: app, documentId: "doc", now: Time.start)
            index += 1
        }
        return try XCTUnwrap(jobs().first, "a compaction was asked for")
    }

    private let big = [UInt8](repeating: 7, count: 64 << 10)

    private func reloaded(_ directory: TemporaryDirectory) -> UndoState? {
        let again = UndoStore(stateDirectory: directory.path)
        _ = again.loadAll()
        return again.state(appId: app, documentId: "doc")
    }

    func testAFailedWriteIsRefusedNamingTheDocumentAndTheCauseAndLosesNothing() throws {
        let (directory, store) = try makeStore(steps: 1)
        var failing = true
        inject(["write"], while: { failing })
        XCTAssertThrowsError(try register(store, 2)) { error in
            guard let error = error as? UndoError, case .storage(let code) = error.kind else { return XCTFail("\(error)") }
            XCTAssertEqual(code, ENOSPC)
            XCTAssertTrue(error.message.contains("'doc'") && error.message.contains("write"), error.message)
            // What it answers on the bus: UndoErrorBusErrorTests.
        }
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoCount, 1, "the refused step is not in memory")
        failing = false
        try register(store, 3)
        store.sync()
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testAFailedFdatasyncIsNeverRetriedTheJournalIsRewrittenFromMemory() throws {
        let (directory, store) = try makeStore(steps: 1)
        var syncs = 0
        calls = []
        UndoFiles.inject = { [unowned self] call, path in
            calls.append((call, path))
            guard call == "fdatasync" else { return nil }
            syncs += 1
            return syncs == 1 ? EIO : nil
        }
        XCTAssertFalse(store.sync())
        XCTAssertTrue(store.takeProblems().contains { $0.activity == "sync" && $0.error?.errno == EIO })
        let journalSyncs = calls.filter { $0.call == "fdatasync" && !$0.path.hasSuffix(".tmp") }
        XCTAssertEqual(journalSyncs.count, 1, "fdatasync of the journal was not retried")
        XCTAssertTrue(calls.contains { $0.call == "rename" }, "the journal was rewritten (temp file renamed over it)")
        XCTAssertTrue(calls.contains { $0.call == "fdatasync" && $0.path.hasSuffix(".tmp") }, "the rewrite is durable")
        XCTAssertFalse(store.hasUnsyncedWrites)
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testARewriteThatFailsTooIsTriedAgainAtTheNextSyncNotTheFdatasync() throws {
        let (directory, store) = try makeStore(steps: 1)
        var broken = true
        inject(["fdatasync", "rename"], EIO, while: { broken })
        XCTAssertFalse(store.sync())
        XCTAssertTrue(store.hasUnsyncedWrites, "still owed a durable copy")
        broken = false
        calls = []
        XCTAssertTrue(store.sync())
        XCTAssertTrue(calls.contains { $0.call == "rename" }, "rewritten, not re-synced")
        XCTAssertFalse(calls.contains { $0.call == "fdatasync" && !$0.path.hasSuffix(".tmp") })
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testAWriteAndItsTruncateFailingBreakTheJournalAndTheNextStepRewritesIt() throws {
        let (directory, store) = try makeStore(steps: 1)
        var failing = true
        inject(["write", "ftruncate"], EIO, while: { failing })
        XCTAssertThrowsError(try register(store, 2))
        failing = false
        calls = []
        try register(store, 3)
        XCTAssertTrue(calls.contains { $0.call == "rename" }, "the broken journal was rewritten before the append")
        store.sync()
        let state = try XCTUnwrap(reloaded(directory))
        XCTAssertEqual(state.undoCount, 2)
        XCTAssertEqual(state, store.state(appId: app, documentId: "doc"))
    }

    func testTheSeamParsesWhatMenubusdIsGiven() throws {
        let faults = try XCTUnwrap(UndoFiles.faults(from: "write=28@2,rename=5"))
        XCTAssertNil(faults("write", "/x"))
        XCTAssertNil(faults("write", "/x"))
        XCTAssertEqual(faults("write", "/x"), 28)
        XCTAssertEqual(faults("rename", "/x"), 5)
        XCTAssertNil(faults("fdatasync", "/x"))
        XCTAssertNil(UndoFiles.faults(from: "nonsense"))
        let slow = try XCTUnwrap(UndoFiles.faults(from: "write=+1@1"))
        XCTAssertNil(slow("write", "/x"))
        XCTAssertNil(slow("write", "/x"), "a delay, then the call is made")
    }

    // MARK: Syncing off the loop

    func testABackgroundSyncCoversOnlyTheWritesBeforeItAndAFailureRewrites() throws {
        let (directory, store) = try makeStore(steps: 1)
        let batch = store.prepareBackgroundSync()
        XCTAssertEqual(batch.jobs.count, 1)
        try register(store, 2)  // while the sync runs elsewhere
        // Through a dispatch queue, as menubusd runs it.
        let result = DispatchQueue(label: "test-sync").sync { UndoStore.runSync(batch) }
        XCTAssertTrue(store.finishBackgroundSync(result))
        XCTAssertTrue(store.hasUnsyncedWrites, "step 2 came after the sync began")
        // A failing background fdatasync: not retried, rewritten from memory.
        let second = store.prepareBackgroundSync()
        calls = []
        UndoFiles.inject = { [unowned self] call, path in
            calls.append((call, path))
            return call == "fdatasync" && !path.hasSuffix(".tmp") ? EIO : nil
        }
        XCTAssertFalse(store.finishBackgroundSync(UndoStore.runSync(second)))
        XCTAssertTrue(calls.contains { $0.call == "rename" }, "rewritten from memory")
        XCTAssertEqual(calls.filter { $0.call == "fdatasync" && !$0.path.hasSuffix(".tmp") }.count, 1)
        XCTAssertFalse(store.hasUnsyncedWrites)
        XCTAssertEqual(reloaded(directory), store.state(appId: app, documentId: "doc"))
    }

    func testACompactionOffTheLoopKeepsTheStepsAppendedWhileItRan() throws {
        let (directory, store) = try makeStore()
        // Only the snapshot goes off the loop; the rename is done on it.
        let disk = ManualDiskExecutor(offloading: [.snapshot])
        store.executor = disk
        let job = try registerUntilCompaction(store) { disk.compactions }
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: job.journal.path)[.size] as? Int ?? 0
        DispatchQueue(label: "test-compaction").sync { UndoJournal.runCompaction(job) }
        // Steps that arrive while the snapshot is written must survive it.
        for extra in 0..<3 {
            try store.perform(.register(actionName: "Late \(extra)", undo: [UInt8(extra)], redo: [2], mergeKey: ""),
                              appId: app, documentId: "doc", now: Time.start)
        }
        XCTAssertEqual(disk.compactions.count, 1, "one compaction at a time")
        try disk.handBack(.snapshot)
        XCTAssertTrue(store.takeProblems().isEmpty)
        let sizeAfter = try FileManager.default.attributesOfItem(atPath: job.journal.path)[.size] as? Int ?? 0
        XCTAssertLessThan(sizeAfter, sizeBefore, "compacted")
        XCTAssertEqual(try directory.journalNames().filter { $0.hasSuffix(".tmp") }, [], "no temporary file left")
        store.sync()
        let state = try XCTUnwrap(reloaded(directory))
        XCTAssertEqual(state, store.state(appId: app, documentId: "doc"))
        XCTAssertEqual(state.undoActionName, "Late 2")
    }

    func testACompactionsTailIsCopiedOffTheLoopInRoundsKeepingEveryStep() throws {
        let (directory, store) = try makeStore()
        // The snapshot and the tail copies go off the loop; the rename is done on it.
        let disk = ManualDiskExecutor(offloading: [.snapshot, .tailCopy])
        store.executor = disk
        let job = try registerUntilCompaction(store) { disk.compactions }
        let queue = DispatchQueue(label: "test-compaction")
        queue.sync { UndoJournal.runCompaction(job) }
        // 200 KiB arrive while the snapshot is written, then 100 KiB during the first tail copy.
        for extra in 0..<3 {
            try store.perform(.register(actionName: "Late \(extra)", undo: big, redo: [2], mergeKey: ""),
                              appId: app, documentId: "doc", now: Time.start)
        }
        try disk.handBack(.snapshot)
        XCTAssertEqual(disk.tailCopies.count, 1, "the tail is copied off the loop first")
        XCTAssertTrue(job.journal.compacting)
        queue.sync { UndoJournal.runTailCopy(job) }
        XCTAssertEqual(job.copied, job.copyTarget)
        try store.perform(.register(actionName: "Later", undo: [UInt8](repeating: 3, count: 100 << 10), redo: [2], mergeKey: ""),
                          appId: app, documentId: "doc", now: Time.start)
        try disk.handBack(.tailCopy)
        XCTAssertEqual(disk.tailCopies.count, 2, "more than 64 KiB came meanwhile: one more round")
        queue.sync { UndoJournal.runTailCopy(job) }
        try store.perform(.undo, appId: app, documentId: "doc", now: Time.start)
        try disk.handBack(.tailCopy)
        XCTAssertEqual(disk.tailCopies.count, 2, "a small tail is copied on the loop and the file renamed")
        XCTAssertFalse(job.journal.compacting)
        XCTAssertTrue(store.takeProblems().isEmpty)
        XCTAssertEqual(try directory.journalNames().filter { $0.hasSuffix(".tmp") }, [])
        store.sync()
        let state = try XCTUnwrap(reloaded(directory))
        XCTAssertEqual(state, store.state(appId: app, documentId: "doc"))
        XCTAssertEqual(state.redoActionName, "Later")
        XCTAssertEqual(state.undoActionName, "Late 2")
    }
}
