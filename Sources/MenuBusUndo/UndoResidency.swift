import MenuBusModel
import MenuBusSupport

/// The documents in memory, least recently used first to go, the documents
/// dropped from memory and the journals not read yet; the one place where
/// the memory and disk budgets, daemon-wide and per app id, are counted and
/// enforced.
final class UndoResidency {
    /// A journal listed at start and not read yet.
    struct PendingJournal: Hashable, Sendable {
        var name: String
        var prefix: String
        var size: Int
        var modified: Int64
    }

    /// A document dropped from memory for the memory budget; its journal is
    /// complete and synced, and is read again on use.
    struct EvictedDocument: Hashable, Sendable {
        var fileName: String
        var size: Int
        var lastTouched: Int64
        var openGroup: Bool
    }

    /// Journal descriptors kept open; beyond it the least recently used close.
    static let maxOpenJournals = 32

    let directory: String
    let limits: UndoLimits
    private let notes: UndoStoreNotes
    private unowned let compactions: UndoCompactionScheduler
    /// Documents in memory; the store changes their stacks through `update`.
    private(set) var documents: [UndoDocumentKey: UndoDocument] = [:]
    /// Documents in memory or dropped, per app id.
    private var documentCounts: [String: Int] = [:]
    /// Names in the directory, so new journals never take one.
    private var fileNames: Set<String> = []
    /// Documents whose journal descriptor is open, least recently used first.
    private var openJournals: [UndoDocumentKey] = []
    /// Documents whose journals have writes not yet synced.
    var unsynced: Set<UndoDocumentKey> = []
    private var directoryReady = false
    /// The directory was listed (`UndoStore.indexJournals`).
    var isLoaded = false
    /// Journals not read yet, by the hash in their names ("" for names the store did not make).
    private(set) var pending: [String: [PendingJournal]] = [:]
    private(set) var pendingCount = 0
    private var pendingBytes = 0
    /// Pending journals by the app id prefix of their names.
    private(set) var pendingByPrefix: [String: Int] = [:]
    /// Documents dropped from memory, read again on use.
    private(set) var evicted: [UndoDocumentKey: EvictedDocument] = [:]
    private var evictedBytes = 0
    /// `UndoStack.totalBytes` of every document in memory.
    private(set) var memoryBytes = 0
    /// `memoryBytes` per app id.
    private var appMemoryBytes: [String: Int] = [:]
    /// Bytes of the appends in flight, counted against the disk budget.
    private var appendingBytes = 0
    private var useTick: UInt64 = 0
    private var lastUse: [UndoDocumentKey: UInt64] = [:]
    /// Journals read whole so far (a seam for tests: a lazy start reads none).
    var journalsRead = 0

    init(directory: String, limits: UndoLimits, notes: UndoStoreNotes, compactions: UndoCompactionScheduler) {
        self.directory = directory
        self.limits = limits
        self.notes = notes
        self.compactions = compactions
    }

    deinit {
        for document in documents.values { document.journal.closeFile() }
    }

    /// Documents in memory, dropped from memory, and journals not read yet.
    var documentCount: Int { documents.count + evicted.count + pendingCount }

    /// Bytes of every journal: those in memory, dropped and not read yet.
    var diskBytes: Int {
        documents.values.reduce(0) { $0 + $1.journal.size } + evictedBytes + pendingBytes
    }

    /// Documents an app id holds, its journals not read yet included (by the prefix of their names).
    func documentCount(of appId: String) -> Int {
        documentCounts[appId, default: 0] + pendingByPrefix[UndoFileName.prefix(of: appId), default: 0]
    }

    func documentCountInMemory(of appId: String) -> Int {
        documentCounts[appId, default: 0]
    }

    /// Changes a document in memory, its memory counted anew.
    func update<Result, Failure: Error>(_ key: UndoDocumentKey,
                                        _ body: (inout UndoDocument) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard var document = documents.removeValue(forKey: key) else { return nil }
        let before = document.stack.totalBytes
        defer {
            countMemory(key, document.stack.totalBytes - before)
            documents[key] = document
        }
        return try body(&document)
    }

    // MARK: The budgets

    private func countMemory(_ key: UndoDocumentKey, _ bytes: Int) {
        memoryBytes += bytes
        appMemoryBytes[key.appId, default: 0] += bytes
        if appMemoryBytes[key.appId] == 0 { appMemoryBytes[key.appId] = nil }
    }

    /// Undo bytes `appId` holds in memory.
    func memoryBytes(of appId: String) -> Int {
        appMemoryBytes[appId, default: 0]
    }

    /// Bytes of `appId`'s journals: those in memory, dropped and not read
    /// yet (by the prefix of their names).
    func diskBytes(of appId: String) -> Int {
        diskUsage(of: appId).app
    }

    /// Bytes of every journal and of `appId`'s, in one pass over the
    /// documents (every new step asks).
    private func diskUsage(of appId: String) -> (all: Int, app: Int) {
        var all = evictedBytes + pendingBytes, app = 0
        for (key, document) in documents {
            all += document.journal.size
            if key.appId == appId { app += document.journal.size }
        }
        for (key, gone) in evicted where key.appId == appId { app += gone.size }
        let prefix = UndoFileName.prefix(of: appId)
        if pendingByPrefix[prefix] != nil {
            for journal in pending.values.joined() where journal.prefix == prefix { app += journal.size }
        }
        return (all, app)
    }

    /// Refuses a write of `key`'s app that would take the journals past the
    /// daemon's disk budget or the app's.
    func checkDiskBudget(adding bytes: Int, for key: UndoDocumentKey, field: String) throws(UndoError) {
        let usage = diskUsage(of: key.appId)
        let used = usage.all + appendingBytes
        if used + bytes > limits.diskBytes {
            throw UndoError(kind: .limitExceeded(.diskBytes), field: field,
                            message: "\(used + bytes) is over menubusd's budget of \(limits.diskBytes) \(UndoLimits.Bound.diskBytes.rawValue) (--undo-disk-budget); nothing was stored, clear some undo documents first")
        }
        let appUsed = usage.app
        if appUsed + bytes > limits.appDiskBytes {
            throw UndoError(kind: .limitExceeded(.appDiskBytes), field: field,
                            message: "\(appUsed + bytes) is over the budget of \(limits.appDiskBytes) \(UndoLimits.Bound.appDiskBytes.rawValue) (--undo-app-disk-budget) of \(key.appId); nothing was stored, clear some of its undo documents first")
        }
    }

    /// An append of `bytes` goes off the loop (negative: it came back).
    func noteAppendInFlight(_ bytes: Int) {
        appendingBytes += bytes
    }

    /// Drops the least recently used documents from memory until the
    /// memory budget holds, never `keeping` nor a document whose journal
    /// has writes not yet synced, is broken or has disk work in flight or
    /// waiting (those go at a later call).
    func enforceMemoryBudget(keeping: UndoDocumentKey? = nil) {
        if let appId = keeping?.appId, memoryBytes(of: appId) > limits.appMemoryBytes {
            evict(keeping: keeping, from: appId) { self.memoryBytes(of: appId) > self.limits.appMemoryBytes }
        }
        guard memoryBytes > limits.memoryBytes else { return }
        evict(keeping: keeping) { self.memoryBytes > self.limits.memoryBytes }
    }

    /// Drops `appId`'s documents from memory, all but those with writes not
    /// yet durable or disk work in flight; the bytes that left memory.
    func dropFromMemory(appId: String) -> Int {
        let before = memoryBytes(of: appId)
        evict(keeping: nil, from: appId) { true }
        return before - memoryBytes(of: appId)
    }

    /// Drops the least recently used documents (of `appId`, or of any app)
    /// while `over` holds.
    private func evict(keeping: UndoDocumentKey?, from appId: String? = nil, while over: () -> Bool) {
        let candidates = documents.keys.filter { $0 != keeping && (appId == nil || $0.appId == appId) }
            .sorted { lastUse[$0, default: 0] < lastUse[$1, default: 0] }
        for key in candidates {
            guard over() else { break }
            guard let document = documents[key], !unsynced.contains(key), compactions.isIdle(key) else { continue }
            let journal = document.journal
            guard !journal.compacting, !journal.isBroken, !journal.hasUnsyncedWrites else { continue }
            journal.closeFile()
            documents[key] = nil
            openJournals.removeAll { $0 == key }
            lastUse[key] = nil
            countMemory(key, -document.stack.totalBytes)
            evicted[key] = EvictedDocument(fileName: journal.fileName, size: journal.size,
                                           lastTouched: document.lastTouched,
                                           openGroup: document.stack.groupDepth > 0)
            evictedBytes += journal.size
        }
        documents.releaseSpareCapacity()
        lastUse.releaseSpareCapacity()
    }

    /// The most recently used document in memory.
    var mostRecentlyUsed: UndoDocumentKey? {
        lastUse.max { $0.value < $1.value }?.key
    }

    func noteUse(_ key: UndoDocumentKey) {
        useTick += 1
        lastUse[key] = useTick
    }

    /// Bookkeeping after a write: unsynced, and most recently used among the
    /// open descriptors (closing the least recently used beyond the bound).
    func noteWrite(_ key: UndoDocumentKey, _ journal: UndoJournal) {
        unsynced.insert(key)
        if journal.needsDirectorySync { notes.directoryNeedsSync = true }
        if openJournals.last == key { return }
        if let index = openJournals.firstIndex(of: key) { openJournals.remove(at: index) }
        openJournals.append(key)
        while openJournals.count > Self.maxOpenJournals {
            documents[openJournals.removeFirst()]?.journal.closeFile()
        }
    }

    /// Forgets the synced documents whose journals are durable now.
    func dropSyncedKeys() {
        unsynced = unsynced.filter { documents[$0].map { $0.journal.hasUnsyncedWrites || $0.journal.isBroken } == true }
    }

    // MARK: Files

    func prepareDirectory() throws(UndoFileError) {
        guard !directoryReady else { return }
        try UndoFiles.makeDirectory(directory)
        directoryReady = true
    }

    /// Creates the journal of a new document under a name no other takes.
    func createJournal(for key: UndoDocumentKey) throws(UndoFileError) -> UndoJournal {
        try prepareDirectory()
        return try UndoJournal.create(in: directory, for: key) { fileNames.contains($0) }
    }

    /// Takes a new document, its journal written.
    func insert(_ document: UndoDocument) {
        documents[document.key] = document
        countMemory(document.key, document.stack.totalBytes)
        documentCounts[document.key.appId, default: 0] += 1
        fileNames.insert(document.journal.fileName)
    }

    /// Takes a document read from its journal (`counted`: already counted, read again after being dropped).
    func adopt(_ document: UndoDocument, counted: Bool) {
        documents[document.key] = document
        countMemory(document.key, document.stack.totalBytes)
        noteUse(document.key)
        if !counted { documentCounts[document.key.appId, default: 0] += 1 }
    }

    /// Names new journals must not take.
    func reserve(_ names: some Sequence<String>) {
        fileNames.formUnion(names)
    }

    func release(_ name: String) {
        fileNames.remove(name)
    }

    /// Removes a document's journal, then forgets the document; false when
    /// there was none. When the journal cannot be removed nothing changes,
    /// so a history that would come back at the next start is never
    /// reported gone.
    @discardableResult
    func remove(_ key: UndoDocumentKey) throws(UndoFileError) -> Bool {
        if documents[key] == nil, let gone = evicted[key] {
            try UndoFiles.remove(directory + "/" + gone.fileName)
            try? UndoFiles.remove(directory + "/" + gone.fileName + ".damaged")
            evicted[key] = nil
            evictedBytes -= gone.size
            uncount(key)
            fileNames.remove(gone.fileName)
            fileNames.remove(gone.fileName + ".damaged")
            notes.directoryNeedsSync = true
            return true
        }
        guard let document = documents[key] else { return false }
        try UndoFiles.remove(document.journal.path)
        documents[key] = nil
        countMemory(key, -document.stack.totalBytes)
        lastUse[key] = nil
        uncount(key)
        openJournals.removeAll { $0 == key }
        unsynced.remove(key)
        // The journal is gone: only its descriptor and a damaged copy are left.
        try? document.journal.removeFiles()
        fileNames.remove(document.journal.fileName)
        fileNames.remove(document.journal.fileName + ".damaged")
        notes.directoryNeedsSync = true
        return true
    }

    private func uncount(_ key: UndoDocumentKey) {
        documentCounts[key.appId, default: 1] -= 1
        if documentCounts[key.appId] == 0 { documentCounts[key.appId] = nil }
    }

    /// Removes the journals not read yet whose modification time `isStale`
    /// (every operation writes to a journal); returns how many.
    func removeStalePending(_ isStale: (Int64) -> Bool) -> Int {
        var removed = 0
        for (hash, files) in pending {
            for file in files where isStale(file.modified) && !file.prefix.isEmpty {
                do {
                    try UndoFiles.remove(directory + "/" + file.name)
                } catch {
                    notes.problems.append(UndoStorageProblem(activity: "removal", key: nil, error: error))
                    continue
                }
                dropPending(file, hash: hash)
                fileNames.remove(file.name)
                fileNames.remove(file.name + ".damaged")
                try? UndoFiles.remove(directory + "/" + file.name + ".damaged")
                notes.directoryNeedsSync = true
                removed += 1
            }
        }
        return removed
    }

    /// Closes every journal's descriptor (at shutdown).
    func closeFiles() {
        for document in documents.values { document.journal.closeFile() }
        openJournals = []
    }

    // MARK: Journals not read yet

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

    /// Reads a dropped document's journal again; false when it was not dropped.
    func reloadEvicted(_ key: UndoDocumentKey) throws(UndoFileError) -> Bool {
        guard let gone = evicted[key] else { return false }
        let result = load(gone.fileName, counted: true)
        guard documents[key] != nil else { throw result.readError ?? .io("read", directory + "/" + gone.fileName) }
        evicted[key] = nil
        evictedBytes -= gone.size
        noteUse(key)
        return true
    }
}
