#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// Documents read on first use, the memory budgets, daemon-wide and per
/// app (least recently used documents dropped and read again), and the
/// disk budgets.
final class UndoLazyLoadingTests: XCTestCase {
    let app = "org.example.Editor"

    private func key(_ document: String) throws -> UndoDocumentKey {
        try UndoDocumentKey(appId: app, documentId: document)
    }

    private func payload(_ document: Int, _ step: Int, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ document &* 7 &+ step) }
    }

    private func register(_ store: UndoStore, _ document: String, _ undo: [UInt8], name: String = "Typing") throws {
        try store.perform(.register(actionName: name, undo: undo, redo: undo.reversed(), mergeKey: ""),
                          appId: app, documentId: document, now: Time.start)
    }

    /// Writes `count` documents of `steps` steps each, synced and closed.
    private func fill(_ directory: TemporaryDirectory, documents count: Int, steps: Int = 3, bytes: Int = 100) throws {
        let store = UndoStore(stateDirectory: directory.path)
        for document in 0..<count {
            for step in 0..<steps {
                try register(store, "doc-\(document)", payload(document, step, bytes: bytes), name: "Step \(step)")
            }
        }
        store.close()
    }

    func testStartListsTheJournalsAndReadsEachOnlyOnItsFirstUse() throws {
        let directory = try TemporaryDirectory()
        try fill(directory, documents: 5)
        let store = UndoStore(stateDirectory: directory.path)
        let report = store.indexJournals()
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(store.journalsRead, 0, "no journal is read at start")
        XCTAssertTrue(store.documents.isEmpty)
        XCTAssertEqual(store.documentCount, 5)
        XCTAssertEqual(store.diskBytes, try directory.journalNames().reduce(0) { $0 + (try directory.size(of: $1)) })

        let state = try XCTUnwrap(store.state(appId: app, documentId: "doc-2"))
        XCTAssertEqual(state.undoCount, 3)
        XCTAssertEqual(store.journalsRead, 1, "only the document used is read")
        XCTAssertEqual(Set(store.documents.keys), [try key("doc-2")])

        let move = try XCTUnwrap(store.perform(.undo, appId: app, documentId: "doc-3", now: Time.start).move)
        XCTAssertEqual(move.actionName, "Step 2")
        XCTAssertEqual(move.payloads, [payload(3, 2, bytes: 100)])
        XCTAssertEqual(store.journalsRead, 2)
        // A document that does not exist reads nothing.
        XCTAssertNil(store.state(appId: app, documentId: "doc-none"))
        XCTAssertNil(store.state(appId: "org.example.Other", documentId: "doc-1"))
        XCTAssertEqual(store.journalsRead, 2)
        XCTAssertEqual(store.documentCount, 5)
        // A new document takes no name of a journal not read yet.
        try register(store, "doc-new", [1])
        XCTAssertEqual(store.documentCount, 6)
        XCTAssertEqual(store.documentIds(of: app), ["doc-0", "doc-1", "doc-2", "doc-3", "doc-4", "doc-new"])
    }

    func testACorruptOrUnreadableJournalTouchesOnlyItsOwnDocument() throws {
        let directory = try TemporaryDirectory()
        try fill(directory, documents: 3)
        // doc-0's journal is garbage; doc-1's name is a directory, which read(2) refuses.
        let corrupt = UndoFileName.name(for: try key("doc-0"))
        try directory.write(Array(repeating: 0xA5, count: 4_096), to: corrupt)
        let unreadable = UndoFileName.name(for: try key("doc-1"))
        try FileManager.default.removeItem(atPath: directory.journalPath(unreadable))
        try FileManager.default.createDirectory(atPath: directory.journalPath(unreadable), withIntermediateDirectories: false)

        let store = UndoStore(stateDirectory: directory.path)
        XCTAssertEqual(store.indexJournals().findings, [], "start reads neither")
        XCTAssertEqual(store.journalsRead, 0)
        let state = try XCTUnwrap(store.state(appId: app, documentId: "doc-2"))
        XCTAssertEqual(state.undoCount, 3)
        XCTAssertEqual(store.journalsRead, 1)
        XCTAssertEqual(try store.perform(.undo, appId: app, documentId: "doc-2", now: Time.start).move?.payloads,
                       [payload(2, 2, bytes: 100)])
        XCTAssertTrue(store.takeProblems().isEmpty)

        // The corrupt one is unknown (left on disk), the unreadable one a storage error naming it.
        XCTAssertNil(store.state(appId: app, documentId: "doc-0"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.journalPath(corrupt)))
        XCTAssertThrowsError(try store.loadState(appId: app, documentId: "doc-1")) { error in
            guard let error = error as? UndoError, case .storage(let code) = error.kind else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(code, EISDIR)
        }
        XCTAssertFalse(store.takeProblems().isEmpty, "both are reported for the log")
        // doc-2 still works.
        try register(store, "doc-2", [9])
        XCTAssertEqual(store.state(appId: app, documentId: "doc-2")?.undoCount, 3)
    }

    func testLeastRecentlyUsedDocumentsLeaveMemoryAndComeBackWithEveryStep() throws {
        let directory = try TemporaryDirectory()
        var limits = UndoLimits()
        limits.memoryBytes = 300 << 10
        let store = UndoStore(stateDirectory: directory.path, limits: limits)
        let documents = 8, steps = 4, bytes = 25 << 10
        for document in 0..<documents {
            for step in 0..<steps {
                try register(store, "doc-\(document)", payload(document, step, bytes: bytes), name: "Step \(step)")
            }
            XCTAssertTrue(store.sync())
        }
        XCTAssertEqual(store.documentCount, documents)
        XCTAssertGreaterThan(store.evicted.count, 0, "documents were dropped from memory")
        XCTAssertLessThanOrEqual(store.memoryBytes, limits.memoryBytes)
        XCTAssertEqual(store.memoryBytes, store.documents.values.reduce(0) { $0 + $1.stack.totalBytes })
        // The most recently used stayed; the first went.
        XCTAssertNotNil(store.documents[try key("doc-\(documents - 1)")])
        XCTAssertNil(store.documents[try key("doc-0")])
        XCTAssertNotNil(store.evicted[try key("doc-0")])

        let readBefore = store.journalsRead
        for document in 0..<documents {
            for step in (0..<steps).reversed() {
                let move = try XCTUnwrap(store.perform(.undo, appId: app, documentId: "doc-\(document)", now: Time.start).move)
                XCTAssertEqual(move.actionName, "Step \(step)")
                XCTAssertEqual(move.payloads, [payload(document, step, bytes: bytes)], "doc-\(document) step \(step)")
            }
            let redo = try XCTUnwrap(store.perform(.redo, appId: app, documentId: "doc-\(document)", now: Time.start).move)
            XCTAssertEqual(redo.payloads, [payload(document, 0, bytes: bytes).reversed()])
            XCTAssertTrue(store.sync())
            XCTAssertLessThanOrEqual(store.memoryBytes, limits.memoryBytes + steps * (bytes * 2 + 256))
        }
        XCTAssertGreaterThan(store.journalsRead, readBefore, "dropped documents were read again")

        // What was dropped is on disk whole: a fresh store reads the same.
        store.close()
        let again = UndoStore(stateDirectory: directory.path)
        _ = again.loadAll()
        for document in 0..<documents {
            XCTAssertEqual(again.state(appId: app, documentId: "doc-\(document)")?.undoCount, 1)
            XCTAssertEqual(again.state(appId: app, documentId: "doc-\(document)")?.redoCount, steps - 1)
        }
    }

    func testClearingADroppedDocumentRemovesItsJournal() throws {
        let directory = try TemporaryDirectory()
        var limits = UndoLimits()
        limits.memoryBytes = 40 << 10
        let store = UndoStore(stateDirectory: directory.path, limits: limits)
        try register(store, "doc-0", payload(0, 0, bytes: 30 << 10))
        store.sync()
        try register(store, "doc-1", payload(1, 0, bytes: 30 << 10))
        XCTAssertNotNil(store.evicted[try key("doc-0")])
        XCTAssertTrue(try store.remove(appId: app, documentId: "doc-0"))
        XCTAssertEqual(store.documentCount, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.journalPath(UndoFileName.name(for: try key("doc-0")))))
    }

    func testOverTheDiskBudgetANewStepIsRefusedNamingTheBudgetAndNothingIsLost() throws {
        let directory = try TemporaryDirectory()
        var limits = UndoLimits()
        limits.diskBytes = 200 << 10
        let store = UndoStore(stateDirectory: directory.path, limits: limits)
        var accepted = 0
        var refusal: UndoError?
        for step in 0..<10 {
            do {
                try register(store, "doc", payload(0, step, bytes: 30 << 10), name: "Step \(step)")
                accepted += 1
            } catch {
                refusal = error as? UndoError
                break
            }
        }
        XCTAssertEqual(accepted, 3, "each step writes about 60 KiB")
        let error = try XCTUnwrap(refusal)
        XCTAssertEqual(error.kind, .limitExceeded(.diskBytes))
        XCTAssertEqual(error.field, "undoData")
        XCTAssertTrue(error.message.contains("undo bytes on disk"), error.message)
        XCTAssertTrue(error.message.contains("--undo-disk-budget"), error.message)
        XCTAssertLessThanOrEqual(store.diskBytes, limits.diskBytes)
        XCTAssertEqual(store.state(appId: app, documentId: "doc")?.undoCount, accepted)
        // A new document is refused too; undo still works.
        XCTAssertThrowsError(try register(store, "other", payload(1, 0, bytes: 30 << 10))) { error in
            XCTAssertEqual((error as? UndoError)?.kind, .limitExceeded(.diskBytes))
        }
        XCTAssertEqual(store.documentCount, 1)
        XCTAssertEqual(try store.perform(.undo, appId: app, documentId: "doc", now: Time.start).move?.payloads,
                       [payload(0, accepted - 1, bytes: 30 << 10)])
        store.close()
        let again = UndoStore(stateDirectory: directory.path)
        _ = again.loadAll()
        XCTAssertEqual(again.state(appId: app, documentId: "doc")?.undoCount, accepted - 1)
        XCTAssertEqual(again.state(appId: app, documentId: "doc")?.redoCount, 1)
        XCTAssertEqual(again.documentCount, 1)
    }

    /// One app over its own memory budget loses its least recently used
    /// documents from memory; another app's stay, though the daemon-wide
    /// budget is far off. Nothing is lost: the dropped one reads back.
    func testAnAppOverItsMemoryBudgetDropsOnlyItsOwnDocuments() throws {
        let directory = try TemporaryDirectory()
        var limits = UndoLimits()
        limits.appMemoryBytes = 100 << 10
        let store = UndoStore(stateDirectory: directory.path, limits: limits)
        let other = "org.example.Other"
        try store.perform(.register(actionName: "Typing", undo: payload(9, 0, bytes: 30 << 10), redo: [], mergeKey: ""),
                          appId: other, documentId: "kept", now: Time.start)
        XCTAssertTrue(store.sync())
        for document in 0..<4 {
            try register(store, "doc-\(document)", payload(document, 0, bytes: 30 << 10))
            XCTAssertTrue(store.sync())
        }
        XCTAssertNotNil(store.documents[try UndoDocumentKey(appId: other, documentId: "kept")], "the other app's document stays")
        XCTAssertNotNil(store.evicted[try key("doc-0")], "the app's least recently used document left memory")
        XCTAssertNotNil(store.documents[try key("doc-3")], "its newest stays")
        XCTAssertLessThanOrEqual(store.residency.memoryBytes(of: app), limits.appMemoryBytes + (70 << 10))
        XCTAssertEqual(try store.perform(.undo, appId: app, documentId: "doc-0", now: Time.start).move?.payloads,
                       [payload(0, 0, bytes: 30 << 10)], "read back whole")
    }

    /// An app whose last connection left keeps its history on disk, not in
    /// memory: `release` drops what is durable, what is not yet stays until
    /// synced, and another app's history is untouched; nothing is lost.
    func testReleasingAnAppsHistoryLeavesOnlyWhatIsNotDurableYet() throws {
        let directory = try TemporaryDirectory()
        let store = UndoStore(stateDirectory: directory.path)
        let other = "org.example.Other"
        try store.perform(.register(actionName: "Typing", undo: payload(9, 0, bytes: 10 << 10), redo: [], mergeKey: ""),
                          appId: other, documentId: "kept", now: Time.start)
        for document in 0..<3 { try register(store, "doc-\(document)", payload(document, 0, bytes: 20 << 10)) }
        XCTAssertTrue(store.sync())
        try register(store, "doc-3", payload(3, 0, bytes: 20 << 10))
        store.release(appId: app)
        XCTAssertEqual(store.documents.keys.filter { $0.appId == app }.map(\.documentId), ["doc-3"], "not yet durable")
        XCTAssertTrue(store.sync())
        XCTAssertGreaterThan(store.release(appId: app), 0)
        XCTAssertEqual(store.memoryBytes(of: app), 0)
        XCTAssertGreaterThan(store.memoryBytes(of: other), 0, "another app's history stays")
        XCTAssertEqual(try store.perform(.undo, appId: app, documentId: "doc-3", now: Time.start).move?.payloads,
                       [payload(3, 0, bytes: 20 << 10)], "read back whole")
    }

    /// One app over its own disk budget is refused, naming the budget and
    /// its flag; another app still writes.
    func testAnAppOverItsDiskBudgetIsRefusedNamingTheBudgetAndOthersStillWrite() throws {
        let directory = try TemporaryDirectory()
        var limits = UndoLimits()
        limits.appDiskBytes = 200 << 10
        let store = UndoStore(stateDirectory: directory.path, limits: limits)
        var refusal: UndoError?
        var accepted = 0
        for document in 0..<10 {
            do {
                try register(store, "doc-\(document)", payload(document, 0, bytes: 30 << 10))
                accepted += 1
            } catch {
                refusal = error as? UndoError
                break
            }
        }
        let error = try XCTUnwrap(refusal, "refused before 10 documents of 60 KiB")
        XCTAssertEqual(error.kind, .limitExceeded(.appDiskBytes))
        XCTAssertTrue(error.message.contains("undo bytes on disk per app") && error.message.contains("--undo-app-disk-budget")
                      && error.message.contains(app), error.message)
        XCTAssertLessThanOrEqual(store.residency.diskBytes(of: app), limits.appDiskBytes)
        XCTAssertEqual(store.documentCount, accepted, "nothing refused was kept")
        XCTAssertNoThrow(try store.perform(.register(actionName: "Typing", undo: payload(9, 0, bytes: 30 << 10), redo: [],
                                                     mergeKey: ""),
                                           appId: "org.example.Other", documentId: "d", now: Time.start))
    }

    func testRetentionJudgesJournalsNotReadYetByTheirModificationTime() throws {
        let directory = try TemporaryDirectory()
        try fill(directory, documents: 2)
        let old = directory.journalPath(UndoFileName.name(for: try key("doc-0")))
        let now = Int64(time(nil))
        let tenDaysAgo = Int(now - 10 * Time.day)
        var times = [timespec(tv_sec: tenDaysAgo, tv_nsec: 0), timespec(tv_sec: tenDaysAgo, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, old, &times, 0), 0)
        let store = UndoStore(stateDirectory: directory.path)
        store.indexJournals()
        XCTAssertEqual(store.removeUntouched(olderThanSeconds: 5 * Time.day, now: now), 1)
        XCTAssertEqual(store.journalsRead, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertEqual(store.documentCount, 1)
        XCTAssertNotNil(store.state(appId: app, documentId: "doc-1"))
        XCTAssertNil(store.state(appId: app, documentId: "doc-0"))
    }
}
