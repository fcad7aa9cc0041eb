import MenuBusModel
import MenuBusSupport

/// Every undo document of the daemon, keyed by (app id, document id), each
/// with its journal in `<state directory>/undo/`. The service calls it from
/// its single loop thread; the store reads no clock and talks to no bus.
/// README.md beside this file tells how it is used and how it keeps the
/// journals durable, loaded lazily, within budget and compacted.
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
    /// Journal descriptors kept open; beyond it the least recently used close.
    static let maxOpenJournals = 32
    /// A journal is compacted when larger than this many times its snapshot …
    static let compactionFactor = 2
    /// … plus this many bytes.
    static let compactionSlackBytes = 64 << 10
    /// A `touched` record is written when the time moved this much from the last one.
    static let touchGranularitySeconds: Int64 = 3_600
    /// Seconds the service should let unsynced writes wait at most before `sync()`.
    package static let syncInterval = 0.1

    /// Where the journals are: `<state directory>/undo`.
    package let directory: String
    package let limits: UndoLimits
    package private(set) var documents: [UndoDocumentKey: UndoDocument] = [:]
    private var documentCounts: [String: Int] = [:]
    /// Names in the directory, so new journals never take one.
    private var fileNames: Set<String> = []
    /// Documents whose journal descriptor is open, least recently used first.
    private var openJournals: [UndoDocumentKey] = []
    private var unsynced: Set<UndoDocumentKey> = []
    private var directoryNeedsSync = false
    private var directoryReady = false
    private var loaded = false
    private var problems: [UndoStorageProblem] = []
    /// Runs the disk work it takes off the store's thread (menubusd's
    /// `ThreadedUndoDiskExecutor`); the inline one leaves all of it here.
    package var executor: any UndoDiskExecutor = InlineUndoDiskExecutor()
    /// A group-commit sync is with the executor (`startSync`).
    package private(set) var isSyncing = false
    /// Documents with disk work in flight (an append, a compaction's
    /// rename), and the work waiting for it, in order.
    private var lanes: [UndoDocumentKey: Lane] = [:]
    /// Bytes of the appends in flight, counted against the disk budget.
    private var appendingBytes = 0

    private struct Lane {
        /// Disk work in flight: an append or a compaction's rename, and a
        /// compaction holding the document's appends.
        var holds = 0
        var busy: Bool { holds > 0 }
        var waiting: [() -> Void] = []
    }
    /// Record bytes of the operation being written, reused.
    private var scratch: [UInt8] = []

    // Lazy loading and the memory budget (see `indexJournals()`).

    /// A journal listed at start and not read yet.
    package struct PendingJournal: Hashable, Sendable {
        package var name: String
        package var prefix: String
        package var size: Int
        var modified: Int64
    }

    /// A document dropped from memory for the memory budget; its journal is
    /// complete and synced, and is read again on use.
    struct EvictedDocument: Hashable, Sendable {
        var fileName: String
        package var size: Int
        var lastTouched: Int64
        package var openGroup: Bool
    }

    /// Journals not read yet, by the hash in their names ("" for names the store did not make).
    package var pending: [String: [PendingJournal]] = [:]
    var pendingCount = 0
    var pendingBytes = 0
    /// Pending journals by the app id prefix of their names.
    var pendingByPrefix: [String: Int] = [:]
    /// Documents dropped from memory, read again on use.
    private(set) var evicted: [UndoDocumentKey: EvictedDocument] = [:]
    private var evictedBytes = 0
    /// `UndoStack.totalBytes` of every document in memory.
    package private(set) var memoryBytes = 0
    private var useTick: UInt64 = 0
    private var lastUse: [UndoDocumentKey: UInt64] = [:]
    /// Journals read whole so far (a seam for tests: a lazy start reads none).
    var journalsRead = 0
    /// End the open groups of a document read from a journal the first
    /// time (the service sets it: no app of a previous run can end them).
    package var closesGroupsOnLoad = false

    /// A store over `<stateDirectory>/undo`; nothing is read until `loadAll()`.
    package init(stateDirectory: String, limits: UndoLimits = UndoLimits()) {
        let trimmed = stateDirectory.count > 1 && stateDirectory.hasSuffix("/")
            ? String(stateDirectory.dropLast()) : stateDirectory
        directory = trimmed + "/" + Self.directoryName
        self.limits = limits
    }

    deinit {
        for document in documents.values { document.journal.closeFile() }
    }

    // MARK: Reading

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
    package var documentCount: Int { documents.count + evicted.count + pendingCount }

    /// Bytes of every journal: those in memory, dropped and not read yet.
    package var diskBytes: Int {
        documents.values.reduce(0) { $0 + $1.journal.size } + evictedBytes + pendingBytes
    }

    /// Some journal has writes that are not yet durable: call `sync()`.
    package var hasUnsyncedWrites: Bool { !unsynced.isEmpty || directoryNeedsSync }

    package var hasProblems: Bool { !problems.isEmpty }

    /// Problems since the last call (sync, compaction, removal), for the log.
    package func takeProblems() -> [UndoStorageProblem] {
        defer { problems = [] }
        return problems
    }

    // MARK: Changing

    /// Applies `operation` to the app's document: checks it, writes its
    /// record to the journal (write(2) done), then changes the stack.
    @discardableResult
    package func perform(_ operation: UndoOperation, appId: String, documentId: String,
                 now: Int64) throws(UndoError) -> Outcome {
        let key = try UndoDocumentKey(appId: appId, documentId: documentId)
        settle(key)
        guard let index = try residentIndex(key) else {
            let outcome = try create(key, with: operation, now: now)
            noteUse(key)
            enforceMemoryBudget(keeping: key)
            return outcome
        }
        try documents.values[index].stack.check(operation)
        let journal = documents.values[index].journal
        let touch = Self.needsTouch(documents.values[index].journaledTouch, now)
        scratch.removeAll(keepingCapacity: true)
        if touch { UndoRecord.touched(now).encode(into: &scratch) }
        UndoRecord.operation(operation).encode(into: &scratch)
        if case .register = operation { try checkDiskBudget(adding: scratch.count, field: "undoData") }
        do {
            if journal.isBroken { try journal.rewrite(documents.values[index]) }
            try journal.append(scratch)
        } catch {
            throw error.undoError(for: key)
        }
        return try apply(operation, to: key, journal: journal, now: now, touch: touch)
    }

    /// `perform`, with the records encoded and written off the loop when
    /// the executor takes appends: `done` runs on the loop once the record is written
    /// (then the stack has changed) or the operation was refused. The
    /// operations of one document run one at a time, in the order
    /// submitted, so each sees every step before it; `state` shows an
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
        whenIdle(key) { [self] in
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
        guard executor.offloaded.contains(.append), let index = try residentIndex(key) else { return false }
        let document = documents.values[index]
        try document.stack.check(operation)
        let touch = Self.needsTouch(document.journaledTouch, now)
        let count = (touch ? UndoRecord.touchedCount : 0) + UndoRecord.encodedCount(of: operation)
        if case .register = operation { try checkDiskBudget(adding: count, field: "undoData") }
        let journal = document.journal
        let fd: Int32
        do {
            if journal.isBroken { try journal.rewrite(document) }
            fd = try journal.appendDescriptor()
        } catch {
            throw error.undoError(for: key)
        }
        beginDiskWork(key)
        appendingBytes += count
        let job = AppendJob(key: key, journal: journal, operation: operation, now: now, touch: touch, fd: fd,
                            count: count, done: done)
        executor.execute(.append(job)) { [self] in finishAppend(job) }
        return true
    }

    /// Back on the loop after the append: applies the written operation
    /// (or answers the write's failure), then runs what waited for it.
    private func finishAppend(_ job: AppendJob) {
        appendingBytes -= job.count
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
        endDiskWork(job.key)
    }

    /// After the record is written: changes the stack, compacts if due.
    private func apply(_ operation: UndoOperation, to key: UndoDocumentKey, journal: UndoJournal,
                       now: Int64, touch: Bool) throws(UndoError) -> Outcome {
        guard let index = documents.index(forKey: key) else {
            throw UndoError(kind: .noSuchDocument, field: "documentId", message: "the app has no such undo document")
        }
        let before = documents.values[index].stack.state
        let bytesBefore = documents.values[index].stack.totalBytes
        noteWrite(key, journal)
        let move: UndoStack.Move?
        do {
            move = try documents.values[index].stack.perform(operation)
        } catch {
            // Not reached: `check` passed. Should it be, the journal holds a
            // record the stack refused; rewrite it from the stack.
            journal.markBroken()
            throw error
        }
        documents.values[index].lastTouched = now
        if touch { documents.values[index].journaledTouch = now }
        memoryBytes += documents.values[index].stack.totalBytes - bytesBefore
        compactIfNeeded(at: index)
        holdAppendsIfCompactionLags(key, journal, live: documents.values[index].stack.totalBytes)
        let after = documents.values[index].stack.state
        noteUse(key)
        enforceMemoryBudget(keeping: key)
        return Outcome(move: move, state: after, stateChanged: after != before)
    }

    /// Runs `work` once the document has no disk work in flight, after the
    /// work that waited before it; at once when there is none.
    package func whenIdle(appId: String, documentId: String, _ work: @escaping () -> Void) {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: documentId) else { return work() }
        whenIdle(key, work)
    }

    private func whenIdle(_ key: UndoDocumentKey, _ work: @escaping () -> Void) {
        if lanes[key] != nil {
            lanes[key]?.waiting.append(work)
        } else {
            work()
        }
    }

    /// Some document has disk work in flight or waiting.
    var hasWorkInFlight: Bool { !lanes.isEmpty }

    private func beginDiskWork(_ key: UndoDocumentKey) {
        lanes[key, default: Lane()].holds += 1
    }

    /// The document's disk work is done: runs what waited, in order, until
    /// one of them starts disk work again.
    private func endDiskWork(_ key: UndoDocumentKey) {
        guard lanes[key] != nil else { return }
        lanes[key]?.holds -= 1
        while let lane = lanes[key], !lane.busy, !lane.waiting.isEmpty {
            let next = lanes[key]?.waiting.removeFirst()
            next?()
        }
        if let lane = lanes[key], !lane.busy, lane.waiting.isEmpty { lanes[key] = nil }
    }

    /// Blocks until the document's disk work in flight is done (its
    /// completions run, and what waited behind it).
    private func settle(_ key: UndoDocumentKey) {
        while lanes[key]?.busy == true { executor.waitForAll() }
    }

    /// Blocks until no disk work is in flight (at shutdown).
    package func settleAll() {
        while let key = lanes.first(where: { $0.value.busy })?.key { settle(key) }
        executor.waitForAll()
    }

    /// The document's index in memory, reading its journal if need be;
    /// nil when it has none.
    private func residentIndex(_ key: UndoDocumentKey) throws(UndoError) -> Dictionary<UndoDocumentKey, UndoDocument>.Index? {
        if !loaded {
            // Without knowing the journals on disk, a new one could duplicate a document.
            let report = indexJournals()
            absorb(report)
            guard loaded else {
                let failure = report.findings.lazy.compactMap { finding -> UndoFileError? in
                    if case let .failed(error) = finding.kind { return error }
                    return nil
                }.first ?? .io("opendir", directory)
                throw failure.undoError
            }
        }
        try makeResident(key)
        return documents.index(forKey: key)
    }

    /// Ends every open group of `appId`'s documents (every app's when nil),
    /// journaled like `EndUndoGroup`: an app that left cannot end them, and
    /// they would block Undo forever. `closed` hears of each document
    /// changed: at once for the idle ones; a document with operations in
    /// flight or waiting (they may open or close a group) closes after
    /// them, in its turn, so the loop never waits on the disk for it.
    package func closeOpenGroups(appId: String?, now: Int64,
                                 closed: @escaping (_ key: UndoDocumentKey, _ state: UndoState) -> Void) {
        let busy = lanes.keys.filter { appId == nil || $0.appId == appId }
        for key in busy {
            whenIdle(key) { [self] in closeGroups(of: key, now: now, closed) }
        }
        let open = documents.filter { $0.value.stack.groupDepth > 0 }.map(\.key)
            + evicted.filter { $0.value.openGroup }.map(\.key)
        for key in open.sorted(by: { ($0.appId, $0.documentId) < ($1.appId, $1.documentId) })
        where (appId == nil || key.appId == appId) && lanes[key] == nil {
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

    /// Forgets a document and removes its journal; false when there was none.
    @discardableResult
    package func remove(appId: String, documentId: String) -> Bool {
        guard let key = try? UndoDocumentKey(appId: appId, documentId: documentId) else { return false }
        return remove(key)
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
        for key in stale { remove(key) }
        var removed = stale.count
        for (hash, files) in pending {
            for file in files where isStale(file.modified) && !file.prefix.isEmpty {
                do {
                    try UndoFiles.remove(directory + "/" + file.name)
                } catch {
                    problems.append(UndoStorageProblem(activity: "removal", key: nil, error: error))
                    continue
                }
                dropPending(file, hash: hash)
                fileNames.remove(file.name)
                fileNames.remove(file.name + ".damaged")
                try? UndoFiles.remove(directory + "/" + file.name + ".damaged")
                directoryNeedsSync = true
                removed += 1
            }
        }
        return removed
    }

    /// Makes every write so far durable: fdatasync of each journal written
    /// since the last sync, fsync of the directory when names changed, on
    /// the calling thread. Returns false when something failed (see `takeProblems()`).
    @discardableResult
    package func sync() -> Bool {
        finishBackgroundSync(Self.runSync(prepareBackgroundSync()))
    }

    /// `sync()`, with the system calls made by the executor when it takes
    /// syncs: `then` runs on the store's thread once the sync is done.
    /// Appends go on meanwhile; the sync covers the writes made before it.
    package func startSync(then: @escaping () -> Void) {
        guard executor.offloaded.contains(.sync) else {
            sync()
            return then()
        }
        let batch = prepareBackgroundSync()
        guard !batch.jobs.isEmpty || batch.directory != nil else { return then() }
        isSyncing = true
        let run = UndoSyncRun(batch)
        executor.execute(.sync(run)) { [self] in
            isSyncing = false
            finishBackgroundSync(run.result)
            then()
        }
    }

    // MARK: Lazy loading and the budgets

    /// Brings a document into memory if its journal is on disk: dropped
    /// for the memory budget, or not read yet (then every pending journal
    /// whose name carries its hash is read). Nothing when there is none.
    func makeResident(_ key: UndoDocumentKey) throws(UndoError) {
        guard documents[key] == nil else { return }
        if let gone = evicted[key] {
            let result = load(gone.fileName, counted: true)
            if documents[key] == nil {
                throw (result.readError ?? .io("read", directory + "/" + gone.fileName)).undoError(for: key)
            }
            evicted[key] = nil
            evictedBytes -= gone.size
            noteUse(key)
            enforceMemoryBudget(keeping: key)
            return
        }
        guard let files = pending[UndoFileName.hashText(of: key)] else { return }
        var readError: UndoFileError?
        for file in files.sorted(by: { $0.name < $1.name }) {
            if let error = loadPendingJournal(file) { readError = error }
        }
        if documents[key] == nil, let readError { throw readError.undoError(for: key) }
        if documents[key] != nil { noteUse(key) }
        enforceMemoryBudget(keeping: key)
    }

    /// Reads one pending journal; a read error leaves it pending.
    @discardableResult
    func loadPendingJournal(_ file: PendingJournal) -> UndoFileError? {
        let result = load(file.name, counted: false)
        if let error = result.readError {
            problems.append(UndoStorageProblem(activity: "loading", key: nil, error: error,
                                               detail: "\(file.name): \(error)"))
            return error
        }
        dropPending(file, hash: UndoFileName.parse(file.name)?.hash ?? "")
        if let finding = result.finding {
            var error: UndoFileError?
            if case let .failed(failure) = finding.kind { error = failure }
            problems.append(UndoStorageProblem(activity: "loading", key: finding.key, error: error,
                                               detail: finding.description))
        }
        if let key = result.key, closesGroupsOnLoad {
            while let document = documents[key], document.stack.groupDepth > 0 {
                guard (try? perform(.endGroup, appId: key.appId, documentId: key.documentId,
                                    now: document.lastTouched)) != nil else { break }
            }
        }
        return nil
    }

    /// Reads every pending journal whose name carries `prefix`.
    func loadPending(prefix: String) {
        let files = pending.values.joined().filter { $0.prefix == prefix }
        for file in files.sorted(by: { $0.name < $1.name }) {
            loadPendingJournal(file)
            enforceMemoryBudget(keeping: nil)
        }
    }

    func addPending(_ entry: UndoFiles.Entry) {
        let parsed = UndoFileName.parse(entry.name)
        let file = PendingJournal(name: entry.name, prefix: parsed?.prefix ?? "", size: entry.size,
                                  modified: entry.modified)
        pending[parsed?.hash ?? "", default: []].append(file)
        pendingCount += 1
        pendingBytes += entry.size
        pendingByPrefix[file.prefix, default: 0] += 1
    }

    func dropPending(_ file: PendingJournal, hash: String) {
        guard var files = pending[hash], let index = files.firstIndex(of: file) else { return }
        files.remove(at: index)
        pending[hash] = files.isEmpty ? nil : files
        pendingCount -= 1
        pendingBytes -= file.size
        pendingByPrefix[file.prefix, default: 1] -= 1
        if pendingByPrefix[file.prefix] == 0 { pendingByPrefix[file.prefix] = nil }
    }

    private func noteUse(_ key: UndoDocumentKey) {
        useTick += 1
        lastUse[key] = useTick
    }

    /// Refuses a write that would take the journals past the disk budget.
    private func checkDiskBudget(adding bytes: Int, field: String) throws(UndoError) {
        let used = diskBytes + appendingBytes
        guard used + bytes > limits.diskBytes else { return }
        throw UndoError(kind: .limitExceeded(.diskBytes), field: field,
                        message: "\(used + bytes) is over menubusd's budget of \(limits.diskBytes) \(UndoLimits.Bound.diskBytes.rawValue) (--undo-disk-budget); nothing was stored, clear some undo documents first")
    }

    /// Drops the least recently used documents from memory until the
    /// memory budget holds, never `keeping` nor a document whose journal
    /// has writes not yet synced, is broken or is being compacted (those
    /// go at a later call).
    func enforceMemoryBudget(keeping: UndoDocumentKey? = nil) {
        guard memoryBytes > limits.memoryBytes else { return }
        let candidates = documents.keys.filter { $0 != keeping }
            .sorted { lastUse[$0, default: 0] < lastUse[$1, default: 0] }
        for key in candidates {
            guard memoryBytes > limits.memoryBytes else { break }
            guard let document = documents[key], !unsynced.contains(key), lanes[key] == nil else { continue }
            let journal = document.journal
            guard !journal.compacting, !journal.isBroken, !journal.hasUnsyncedWrites else { continue }
            journal.closeFile()
            documents[key] = nil
            openJournals.removeAll { $0 == key }
            lastUse[key] = nil
            memoryBytes -= document.stack.totalBytes
            evicted[key] = EvictedDocument(fileName: journal.fileName, size: journal.size,
                                           lastTouched: document.lastTouched,
                                           openGroup: document.stack.groupDepth > 0)
            evictedBytes += journal.size
        }
    }

    /// Syncs and closes every journal (at shutdown).
    package func close() {
        settleAll()
        sync()
        for document in documents.values { document.journal.closeFile() }
        openJournals = []
    }

    // MARK: Private

    private static func needsTouch(_ journaled: Int64, _ now: Int64) -> Bool {
        let (difference, overflow) = now.subtractingReportingOverflow(journaled)
        return overflow || difference.magnitude >= UInt64(touchGranularitySeconds)
    }

    private func create(_ key: UndoDocumentKey, with operation: UndoOperation, now: Int64) throws(UndoError) -> Outcome {
        guard operation.createsDocument else {
            throw UndoError(kind: .noSuchDocument, field: "documentId", message: "the app has no such undo document")
        }
        let prefix = UndoFileName.prefix(of: key.appId)
        var count = documentCounts[key.appId, default: 0] + pendingByPrefix[prefix, default: 0]
        if count >= UndoLimits.maxDocumentsPerApp, pendingByPrefix[prefix] != nil {
            // Journals not read yet may belong to another app id with the same prefix.
            loadPending(prefix: prefix)
            count = documentCounts[key.appId, default: 0]
        }
        guard count < UndoLimits.maxDocumentsPerApp else {
            throw .limit(.documentsPerApp, field: "documentId", value: count + 1, limit: UndoLimits.maxDocumentsPerApp)
        }
        var stack = UndoStack(limits: limits)
        let before = stack.state
        try stack.check(operation)
        let journal: UndoJournal
        do {
            try prepareDirectory()
            journal = try UndoJournal.create(in: directory, for: key) { fileNames.contains($0) }
        } catch {
            throw error.undoError(for: key)
        }
        scratch.removeAll(keepingCapacity: true)
        UndoRecord.header(key).encode(into: &scratch)
        UndoRecord.touched(now).encode(into: &scratch)
        UndoRecord.operation(operation).encode(into: &scratch)
        do {
            try checkDiskBudget(adding: scratch.count, field: "documentId")
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
        documents[key] = UndoDocument(key: key, stack: stack, lastTouched: now, journaledTouch: now, journal: journal)
        memoryBytes += stack.totalBytes
        documentCounts[key.appId, default: 0] += 1
        fileNames.insert(journal.fileName)
        noteWrite(key, journal)
        let after = stack.state
        return Outcome(move: move, state: after, stateChanged: after != before)
    }

    /// Bookkeeping after a write: unsynced, and most recently used among the
    /// open descriptors (closing the least recently used beyond the bound).
    private func noteWrite(_ key: UndoDocumentKey, _ journal: UndoJournal) {
        unsynced.insert(key)
        if journal.needsDirectorySync { directoryNeedsSync = true }
        if openJournals.last == key { return }
        if let index = openJournals.firstIndex(of: key) { openJournals.remove(at: index) }
        openJournals.append(key)
        while openJournals.count > Self.maxOpenJournals {
            documents[openJournals.removeFirst()]?.journal.closeFile()
        }
    }

    /// A compaction off the loop copies what was appended while it ran; an
    /// app appending faster than that would keep it from finishing and
    /// grow the journal without bound. Once the journal has grown by half
    /// the live document since the snapshot began, the document's appends
    /// wait (their replies too) until the compaction is renamed. (Half, so
    /// the compacted file, about 1.5× the document, is below the next
    /// compaction's 2×: compactions do not follow each other at once.)
    private func holdAppendsIfCompactionLags(_ key: UndoDocumentKey, _ journal: UndoJournal, live: Int) {
        guard executor.offloaded.contains(.finish), case .copying(let startSize) = journal.compaction,
              journal.size - startSize > live / 2 + Self.compactionSlackBytes else { return }
        journal.compaction = .holdingAppends
        beginDiskWork(key)
    }

    private func compactIfNeeded(at index: Dictionary<UndoDocumentKey, UndoDocument>.Index) {
        let journal = documents.values[index].journal
        let live = documents.values[index].stack.totalBytes
        guard journal.size > Self.compactionFactor * live + Self.compactionSlackBytes,
              journal.size >= journal.compactionRetrySize, !journal.compacting else { return }
        if executor.offloaded.contains(.snapshot) {
            journal.compaction = .copying(startSize: journal.size)
            let job = CompactionJob(document: documents.values[index], journal: journal)
            executor.execute(.snapshot(job)) { [self] in finishCompaction(job) }
            return
        }
        do {
            try journal.rewrite(documents.values[index])
        } catch {
            journal.compactionRetrySize = journal.size + Self.compactionSlackBytes
            problems.append(UndoStorageProblem(activity: "compaction", key: documents.values[index].key, error: error))
        }
    }

    @discardableResult
    private func remove(_ key: UndoDocumentKey) -> Bool {
        settle(key)
        if documents[key] == nil, let gone = evicted.removeValue(forKey: key) {
            evictedBytes -= gone.size
            documentCounts[key.appId, default: 1] -= 1
            if documentCounts[key.appId] == 0 { documentCounts[key.appId] = nil }
            do {
                try UndoFiles.remove(directory + "/" + gone.fileName)
                try? UndoFiles.remove(directory + "/" + gone.fileName + ".damaged")
                fileNames.remove(gone.fileName)
                fileNames.remove(gone.fileName + ".damaged")
            } catch {
                problems.append(UndoStorageProblem(activity: "removal", key: key, error: error))
            }
            directoryNeedsSync = true
            return true
        }
        guard let document = documents.removeValue(forKey: key) else { return false }
        memoryBytes -= document.stack.totalBytes
        lastUse[key] = nil
        documentCounts[key.appId, default: 1] -= 1
        if documentCounts[key.appId] == 0 { documentCounts[key.appId] = nil }
        openJournals.removeAll { $0 == key }
        unsynced.remove(key)
        do {
            try document.journal.removeFiles()
            fileNames.remove(document.journal.fileName)
            fileNames.remove(document.journal.fileName + ".damaged")
        } catch {
            problems.append(UndoStorageProblem(activity: "removal", key: key, error: error))
        }
        directoryNeedsSync = true
        return true
    }

    private func prepareDirectory() throws(UndoFileError) {
        guard !directoryReady else { return }
        try UndoFiles.makeDirectory(directory)
        directoryReady = true
    }

    // MARK: For syncing off the loop (UndoStore+BackgroundSync.swift)

    /// Back on the loop after the snapshot or a tail copy: copies the tail
    /// once more, finishes, or waits for the document's turn to finish.
    private func finishCompaction(_ job: CompactionJob) {
        let journal = job.journal
        guard documents[job.key]?.journal === journal else {
            // The document went meanwhile: only the temporary file is left.
            if journal.compaction == .holdingAppends { endDiskWork(job.key) }
            journal.compaction = .none
            if job.fd >= 0 { UndoFiles.close(job.fd) }
            try? UndoFiles.remove(job.temporary)
            return
        }
        let offloaded = executor.offloaded
        if journal.compaction == .holdingAppends, offloaded.contains(.finish) {
            // The appends wait already: the last tail and the rename now.
            startFinish(job)
            return
        }
        if offloaded.contains(.tailCopy), journal.wantsTailRound(job) {
            job.copyTarget = journal.size
            job.tailRounds += 1
            executor.execute(.tailCopy(job)) { [self] in finishCompaction(job) }
            return
        }
        if offloaded.contains(.finish) {
            // The rename must not race an append: after the document's disk work.
            journal.compaction = .finishQueued
            whenIdle(job.key) { [self] in
                beginDiskWork(job.key)
                startFinish(job)
            }
            return
        }
        do {
            try journal.finishCompaction(job)
        } catch {
            journal.compactionRetrySize = journal.size + Self.compactionSlackBytes
            problems.append(UndoStorageProblem(activity: "compaction", key: job.key, error: error))
        }
        if journal.needsDirectorySync { directoryNeedsSync = true }
    }

    /// With the document's lane held (its turn came, or its appends are
    /// held): the last tail copy and the rename off the loop, or the
    /// compaction given up (then the lane is let go).
    private func startFinish(_ job: CompactionJob) {
        let journal = job.journal
        guard documents[job.key]?.journal === journal, journal.compactionIsCurrent(job) else {
            let failure = job.error
            journal.discardCompaction(job)
            if let failure {
                journal.compactionRetrySize = journal.size + Self.compactionSlackBytes
                problems.append(UndoStorageProblem(activity: "compaction", key: job.key, error: failure))
            }
            endDiskWork(job.key)
            return
        }
        journal.compaction = .finishing
        job.finalSize = journal.size
        job.oldFd = journal.detachDescriptor()
        executor.execute(.finish(job)) { [self] in finishRenamedCompaction(job) }
    }

    /// Back on the loop after the finish: the renamed snapshot replaces the
    /// journal; then what waited for the document runs.
    private func finishRenamedCompaction(_ job: CompactionJob) {
        let journal = job.journal
        do {
            try journal.adoptFinishedCompaction(job)
        } catch {
            journal.compactionRetrySize = journal.size + Self.compactionSlackBytes
            problems.append(UndoStorageProblem(activity: "compaction", key: job.key, error: error))
        }
        if journal.needsDirectorySync { directoryNeedsSync = true }
        endDiskWork(job.key)
    }

    var unsyncedKeys: [UndoDocumentKey] { Array(unsynced) }

    /// The document has disk work in flight: its journal file is not to be
    /// replaced on the loop now.
    func isBusy(_ key: UndoDocumentKey) -> Bool {
        lanes[key]?.busy == true
    }

    func recordProblem(_ problem: UndoStorageProblem) {
        problems.append(problem)
    }

    func markDirectoryForSync() {
        directoryNeedsSync = true
    }

    /// True once: the directory needs a sync, now handed to the caller.
    func takeDirectorySync() -> Bool {
        defer { directoryNeedsSync = false }
        return directoryNeedsSync
    }

    func dropSyncedKeys() {
        unsynced = unsynced.filter { documents[$0].map { $0.journal.hasUnsyncedWrites || $0.journal.isBroken } == true }
        enforceMemoryBudget(keeping: lastUse.max { $0.value < $1.value }?.key)
    }

    // MARK: For loading (UndoStore+Loading.swift)

    var isLoaded: Bool { loaded }

    func markLoaded() {
        loaded = true
    }

    func prepareDirectoryForLoading() throws(UndoFileError) {
        try prepareDirectory()
    }

    /// Names new journals must not take.
    func reserve(_ names: some Sequence<String>) {
        fileNames.formUnion(names)
    }

    package func release(_ name: String) {
        fileNames.remove(name)
    }

    /// Takes a loaded document (`counted`: already counted, read again after being dropped).
    func adopt(_ document: UndoDocument, counted: Bool = false) {
        documents[document.key] = document
        memoryBytes += document.stack.totalBytes
        noteUse(document.key)
        if !counted { documentCounts[document.key.appId, default: 0] += 1 }
    }

    /// Findings of a load `perform` had to do (no `loadAll()` first) go to the problems.
    private func absorb(_ report: UndoLoadReport) {
        for finding in report.findings {
            var error: UndoFileError?
            if case let .failed(failure) = finding.kind { error = failure }
            problems.append(UndoStorageProblem(activity: "loading", key: finding.key, error: error,
                                               detail: finding.description))
        }
    }
}
