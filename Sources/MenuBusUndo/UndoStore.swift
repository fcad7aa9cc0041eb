import MenuBusModel
import MenuBusSupport

/// Every undo document of the daemon, keyed by (app id, document id), each
/// with its journal in `<state directory>/undo/`. The service calls it from
/// its single loop thread; the store reads no clock and talks to no bus.
/// README.md beside this file tells how it is used and how it keeps the
/// journals durable, loaded lazily, within budget and compacted.
///
/// The store is the facade of three owners: `UndoResidency` (what is in
/// memory, the budgets), `UndoCompactionScheduler` (each document's disk
/// work in order, compactions) and the `executor` that runs the system calls.
package final class UndoStore {
    /// What an operation gave.
    package struct Outcome: Hashable, Sendable {
        /// For `.undo` and `.redo`: the step's action name and payloads, the reply of `Undo`/`Redo`.
        package var move: UndoStack.Move?
        /// The document's state after the operation (`RegisterUndo` replies `undoCount`).
        package var state: UndoState
        /// The state differs from before: signal `UndoStateChanged`, update edit menus.
        package var stateChanged: Bool
    }

    /// The folder inside the state directory that holds the journals.
    static let directoryName = "undo"
    static let compactionFactor = UndoCompactionScheduler.compactionFactor
    static let compactionSlackBytes = UndoCompactionScheduler.compactionSlackBytes
    /// A `touched` record is written when the time moved this much from the last one.
    static let touchGranularitySeconds: Int64 = 3_600
    /// Seconds the service should let unsynced writes wait at most before `sync()`.
    package static let syncInterval = 0.1

    /// Where the journals are: `<state directory>/undo`.
    package let directory: String
    package let limits: UndoLimits
    let notes = UndoStoreNotes()
    let compactions: UndoCompactionScheduler
    let residency: UndoResidency
    /// A group-commit sync is with the executor (`startSync`).
    package internal(set) var isSyncing = false
    /// End the open groups of a document read from a journal the first
    /// time (the service sets it: no app of a previous run can end them).
    package var closesGroupsOnLoad = false
    /// Record bytes of the operation being written, reused up to
    /// `maxScratchBytes` of capacity: a 1 MiB step's buffer is not kept
    /// after its app has gone.
    private var scratch: [UInt8] = []
    static let maxScratchBytes = 64 << 10

    /// A store over `<stateDirectory>/undo`; nothing is read until `loadAll()`.
    package init(stateDirectory: String, limits: UndoLimits = UndoLimits()) {
        let trimmed = stateDirectory.count > 1 && stateDirectory.hasSuffix("/")
            ? String(stateDirectory.dropLast()) : stateDirectory
        directory = trimmed + "/" + Self.directoryName
        self.limits = limits
        compactions = UndoCompactionScheduler(notes: notes)
        residency = UndoResidency(directory: directory, limits: limits, notes: notes, compactions: compactions)
    }

    /// Runs the disk work it takes off the store's thread (menubusd's
    /// `ThreadedUndoDiskExecutor`); the inline one leaves all of it here.
    package var executor: any UndoDiskExecutor {
        get { compactions.executor }
        set { compactions.executor = newValue }
    }

    // MARK: Reading

    package var documents: [UndoDocumentKey: UndoDocument] { residency.documents }
    package var memoryBytes: Int { residency.memoryBytes }
    var evicted: [UndoDocumentKey: UndoResidency.EvictedDocument] { residency.evicted }
    var journalsRead: Int { residency.journalsRead }

    /// The state of a document; nil when the app has no such document.
    package func state(appId: String, documentId: String) -> UndoState? {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: documentId) else { return nil }
        try? makeResident(key)
        return documents[key]?.stack.state
    }

    /// The state of a document, reading its journal if it is not in
    /// memory; nil when the app has no such document; a storage error when
    /// its journal cannot be read.
    package func loadState(appId: String, documentId: String) throws(UndoError) -> UndoState? {
        let key = try UndoDocumentKey(appId: appId, documentId: documentId)
        try makeResident(key)
        return documents[key]?.stack.state
    }

    /// The ids of the documents an app id holds, sorted (reads the journals
    /// not read yet whose names carry the app id's prefix).
    func documentIds(of appId: String) -> [String] {
        loadPending(prefix: UndoFileName.prefix(of: appId))
        return (Array(documents.keys) + Array(evicted.keys)).filter { $0.appId == appId }.map(\.documentId).sorted()
    }

    /// Documents in memory, dropped from memory, and journals not read yet.
    package var documentCount: Int { residency.documentCount }

    /// Bytes of every journal: those in memory, dropped and not read yet.
    package var diskBytes: Int { residency.diskBytes }

    /// Some journal has writes that are not yet durable: call `sync()`.
    package var hasUnsyncedWrites: Bool { !residency.unsynced.isEmpty || notes.directoryNeedsSync }

    package var hasProblems: Bool { !notes.problems.isEmpty }

    /// Problems since the last call (sync, compaction, removal), for the log.
    package func takeProblems() -> [UndoStorageProblem] {
        defer { notes.problems = [] }
        return notes.problems
    }

    /// Some document has disk work in flight or waiting.
    var hasWorkInFlight: Bool { compactions.hasWorkInFlight }

    // MARK: Changing

    /// Applies `operation` to the app's document: checks it, writes its
    /// record to the journal (write(2) done), then changes the stack.
    @discardableResult
    package func perform(_ operation: UndoOperation, appId: String, documentId: String,
                         now: Int64) throws(UndoError) -> Outcome {
        let key = try UndoDocumentKey(appId: appId, documentId: documentId)
        compactions.settle(key)
        guard let document = try resident(key, for: operation) else {
            let outcome = try create(key, with: operation, now: now)
            residency.noteUse(key)
            residency.enforceMemoryBudget(keeping: key)
            return outcome
        }
        try document.stack.check(operation)
        let journal = document.journal
        let touch = Self.needsTouch(document.journaledTouch, now)
        scratch.removeAll(keepingCapacity: true)
        defer { if scratch.capacity > Self.maxScratchBytes { scratch = [] } }
        if touch { UndoRecord.touched(now).encode(into: &scratch) }
        UndoRecord.operation(operation).encode(into: &scratch)
        if case .register = operation { try residency.checkDiskBudget(adding: scratch.count, for: key, field: "undoData") }
        do {
            if journal.isBroken { try journal.rewrite(document) }
            try journal.append(scratch)
        } catch {
            throw error.undoError(for: key)
        }
        return try apply(operation, to: key, journal: journal, now: now, touch: touch)
    }

    /// `perform`, with the records encoded and written off the loop when
    /// the executor takes appends: `done` runs on the loop once the record
    /// is written (then the stack has changed) or the operation was
    /// refused. The operations of one document run one at a time, in the
    /// order submitted, so each sees every step before it; `state` shows an
    /// operation once its record is written. A document's first operation
    /// (which creates its journal) is written in place.
    package func submit(_ operation: UndoOperation, appId: String, documentId: String, now: Int64,
                        done: @escaping (Result<Outcome, UndoError>) -> Void) {
        let key: UndoDocumentKey
        do {
            key = try UndoDocumentKey(appId: appId, documentId: documentId)
        } catch {
            done(.failure(error))
            return
        }
        compactions.whenIdle(key) { [self] in
            do throws(UndoError) {
                if try !startAppend(operation, key: key, now: now, done: done) {
                    done(.success(try perform(operation, appId: appId, documentId: documentId, now: now)))
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Checks the operation and hands its write to the executor; false when
    /// it is to be performed in place (the executor takes no appends, or a new document).
    private func startAppend(_ operation: UndoOperation, key: UndoDocumentKey, now: Int64,
                             done: @escaping (Result<Outcome, UndoError>) -> Void) throws(UndoError) -> Bool {
        guard executor.offloaded.contains(.append), let document = try resident(key, for: operation) else { return false }
        try document.stack.check(operation)
        let touch = Self.needsTouch(document.journaledTouch, now)
        let count = (touch ? UndoRecord.touchedCount : 0) + UndoRecord.encodedCount(of: operation)
        if case .register = operation { try residency.checkDiskBudget(adding: count, for: key, field: "undoData") }
        let journal = document.journal
        let fd: Int32
        do {
            if journal.isBroken { try journal.rewrite(document) }
            fd = try journal.appendDescriptor()
        } catch {
            throw error.undoError(for: key)
        }
        compactions.beginDiskWork(key)
        residency.noteAppendInFlight(count)
        let job = AppendJob(key: key, journal: journal, operation: operation, now: now, touch: touch, fd: fd,
                            count: count, done: done)
        executor.execute(.append(job)) { [self] in finishAppend(job) }
        return true
    }

    /// Back on the loop after the append: applies the written operation
    /// (or answers the write's failure), then runs what waited for it.
    private func finishAppend(_ job: AppendJob) {
        residency.noteAppendInFlight(-job.count)
        let result: Result<Outcome, UndoError>
        if documents[job.key]?.journal !== job.journal {
            // Not reached: a document stays while its write is in flight.
            result = .failure(UndoFileError.io("write", job.path).undoError(for: job.key))
        } else if let error = job.error {
            if job.cutFailed { job.journal.appendCouldNotBeCut() }
            result = .failure(error.undoError(for: job.key))
        } else {
            job.journal.appended(job.written)
            result = Result { () throws(UndoError) in
                try apply(job.operation, to: job.key, journal: job.journal, now: job.now, touch: job.touch)
            }
        }
        job.done(result)
        compactions.endDiskWork(job.key)
    }

    /// After the record is written: changes the stack, compacts if due.
    private func apply(_ operation: UndoOperation, to key: UndoDocumentKey, journal: UndoJournal,
                       now: Int64, touch: Bool) throws(UndoError) -> Outcome {
        guard let before = documents[key]?.stack.state else {
            throw UndoError(kind: .noSuchDocument, field: "documentId", message: "the app has no such undo document")
        }
        residency.noteWrite(key, journal)
        let move = try residency.update(key) { document throws(UndoError) -> UndoStack.Move? in
            let move: UndoStack.Move?
            do throws(UndoError) {
                move = try document.stack.perform(operation)
            } catch {
                // Not reached: `check` passed. Should it be, the journal holds a
                // record the stack refused; rewrite it from the stack.
                journal.markBroken()
                throw error
            }
            document.lastTouched = now
            if touch { document.journaledTouch = now }
            return move
        } ?? nil
        guard let document = documents[key] else {
            throw UndoError(kind: .noSuchDocument, field: "documentId", message: "the app has no such undo document")
        }
        compactions.afterWrite(document)
        let after = document.stack.state
        residency.noteUse(key)
        residency.enforceMemoryBudget(keeping: key)
        return Outcome(move: move, state: after, stateChanged: after != before)
    }

    private static func needsTouch(_ journaled: Int64, _ now: Int64) -> Bool {
        let (difference, overflow) = now.subtractingReportingOverflow(journaled)
        return overflow || difference.magnitude >= UInt64(touchGranularitySeconds)
    }

    private func create(_ key: UndoDocumentKey, with operation: UndoOperation, now: Int64) throws(UndoError) -> Outcome {
        guard operation.createsDocument else {
            throw UndoError(kind: .noSuchDocument, field: "documentId", message: "the app has no such undo document")
        }
        let prefix = UndoFileName.prefix(of: key.appId)
        var count = residency.documentCount(of: key.appId)
        if count >= UndoLimits.maxDocumentsPerApp, residency.pendingByPrefix[prefix] != nil {
            // Journals not read yet may belong to another app id with the same prefix.
            loadPending(prefix: prefix)
            count = residency.documentCountInMemory(of: key.appId)
        }
        guard count < UndoLimits.maxDocumentsPerApp else {
            throw .limit(.documentsPerApp, field: "documentId", value: count + 1, limit: UndoLimits.maxDocumentsPerApp)
        }
        var stack = UndoStack(limits: limits)
        let before = stack.state
        try stack.check(operation)
        let journal: UndoJournal
        do {
            journal = try residency.createJournal(for: key)
        } catch {
            throw error.undoError(for: key)
        }
        scratch.removeAll(keepingCapacity: true)
        defer { if scratch.capacity > Self.maxScratchBytes { scratch = [] } }
        UndoRecord.header(key).encode(into: &scratch)
        UndoRecord.touched(now).encode(into: &scratch)
        UndoRecord.operation(operation).encode(into: &scratch)
        do {
            try residency.checkDiskBudget(adding: scratch.count, for: key, field: "documentId")
        } catch {
            try? journal.removeFiles()
            throw error
        }
        do {
            try journal.append(scratch)
        } catch {
            try? journal.removeFiles()
            throw error.undoError(for: key)
        }
        let move = try stack.perform(operation)
        residency.insert(UndoDocument(key: key, stack: stack, lastTouched: now, journaledTouch: now, journal: journal))
        residency.noteWrite(key, journal)
        let after = stack.state
        return Outcome(move: move, state: after, stateChanged: after != before)
    }

    /// Runs `work` once the document has no disk work in flight, after the
    /// work that waited before it; at once when there is none.
    package func whenIdle(appId: String, documentId: String, _ work: @escaping () -> Void) {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: documentId) else { return work() }
        compactions.whenIdle(key, work)
    }

    /// Blocks until no disk work is in flight (at shutdown).
    package func settleAll() {
        compactions.settleAll()
    }

    /// Ends every open group of `appId`'s documents (every app's when nil),
    /// journaled like `EndUndoGroup`: an app that left cannot end them, and
    /// they would block Undo forever. `closed` hears of each document
    /// changed: at once for the idle ones; a document with operations in
    /// flight or waiting (they may open or close a group) closes after
    /// them, in its turn, so the loop never waits on the disk for it.
    package func closeOpenGroups(appId: String?, now: Int64,
                                 closed: @escaping (_ key: UndoDocumentKey, _ state: UndoState) -> Void) {
        let busy = compactions.keysWithWork.filter { appId == nil || $0.appId == appId }
        for key in busy {
            compactions.whenIdle(key) { [self] in closeGroups(of: key, now: now, closed) }
        }
        let open = documents.filter { $0.value.stack.groupDepth > 0 }.map(\.key)
            + evicted.filter { $0.value.openGroup }.map(\.key)
        for key in open.sorted(by: { ($0.appId, $0.documentId) < ($1.appId, $1.documentId) })
        where (appId == nil || key.appId == appId) && compactions.isIdle(key) {
            closeGroups(of: key, now: now, closed)
        }
    }

    /// Ends the document's open groups (reading it back if it was dropped
    /// from memory); tells `closed` when it changed.
    private func closeGroups(of key: UndoDocumentKey, now: Int64,
                             _ closed: (_ key: UndoDocumentKey, _ state: UndoState) -> Void) {
        if documents[key] == nil, evicted[key]?.openGroup == true { try? makeResident(key) }
        var state: UndoState?
        while let depth = documents[key]?.stack.groupDepth, depth > 0 {
            guard let outcome = try? perform(.endGroup, appId: key.appId, documentId: key.documentId, now: now) else { break }
            state = outcome.state
        }
        if let state { closed(key, state) }
    }

    /// Removes a document's journal and forgets the document; false when
    /// there was none. A storage error when the journal cannot be removed:
    /// then the document stays as it was.
    @discardableResult
    package func remove(appId: String, documentId: String) throws(UndoError) -> Bool {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: documentId) else { return false }
        compactions.settle(key)
        do {
            return try residency.remove(key)
        } catch {
            throw error.undoError(for: key)
        }
    }

    /// Removes every document whose last operation is `seconds` or more
    /// before `now`; returns how many. A journal not read yet is judged by
    /// its modification time (every operation writes to it), so none is read.
    @discardableResult
    package func removeUntouched(olderThanSeconds seconds: Int64, now: Int64) -> Int {
        func isStale(_ time: Int64) -> Bool {
            let (age, overflow) = now.subtractingReportingOverflow(time)
            return !overflow && age >= seconds
        }
        let stale = documents.values.filter { isStale($0.lastTouched) }.map(\.key)
            + evicted.filter { isStale($0.value.lastTouched) }.map(\.key)
        var removed = 0
        for key in stale {
            compactions.settle(key)
            do {
                if try residency.remove(key) { removed += 1 }
            } catch {
                notes.problems.append(UndoStorageProblem(activity: "removal", key: key, error: error))
            }
        }
        return removed + residency.removeStalePending(isStale)
    }

    /// An app's history leaves memory for its journals (its last connection
    /// left): all of it but what is not durable yet; the bytes freed.
    @discardableResult
    package func release(appId: String) -> Int {
        residency.dropFromMemory(appId: appId)
    }

    /// Undo bytes `appId` holds in memory.
    package func memoryBytes(of appId: String) -> Int {
        residency.memoryBytes(of: appId)
    }

    /// Syncs and closes every journal (at shutdown).
    package func close() {
        settleAll()
        sync()
        residency.closeFiles()
    }
}
