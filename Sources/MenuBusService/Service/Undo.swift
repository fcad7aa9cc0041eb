#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// Every app's undo documents (`UndoStore`, whose journals are written off
/// the loop) served on the bus: the undo members of `org.menubus.MenuBus1`,
/// `UndoStateChanged`, the group commit of the journals, and the memory of
/// apps that left. A change of a document's state is told to
/// `stateChanged`: MenuBusServer wires it to the live edit menus.
final class Undo {
    private unowned let connection: Connection
    private unowned let loop: MessageLoop
    private unowned let contexts: Contexts
    private unowned let ledger: Ledger
    /// Undo documents untouched for this many days are removed at start; nil keeps them.
    private let retentionDays: Int?
    /// Undo documents and their journals.
    private let store: UndoStore
    /// The state directory the journals' folder is in.
    private let configuredDirectory: String
    /// Holds the state directory's lock while the daemon runs.
    private var stateLock: Int32?
    private var syncScheduled = false
    /// Apps whose last connection left while some of their undo was not yet
    /// durable: it leaves memory after the next sync (`release(appId:)`).
    private var toRelease: Set<String> = []
    /// The state of document `documentId` of `appId` changed.
    var stateChanged: (_ appId: String, _ documentId: String) -> Void = { _, _ in }

    init(connection: Connection, loop: MessageLoop, contexts: Contexts, ledger: Ledger,
         configuration: MenuBusServer.Configuration) {
        self.connection = connection
        self.loop = loop
        self.contexts = contexts
        self.ledger = ledger
        retentionDays = configuration.undoRetentionDays
        var limits = UndoLimits()
        limits.memoryBytes = configuration.undoMemoryBytes
        limits.diskBytes = configuration.undoDiskBytes
        limits.appMemoryBytes = configuration.undoAppMemoryBytes
        limits.appDiskBytes = configuration.undoAppDiskBytes
        store = UndoStore(stateDirectory: configuration.stateDirectory, limits: limits)
        configuredDirectory = configuration.stateDirectory
    }

    /// Undo documents listed or in memory.
    var documentCount: Int { store.documentCount }
    /// Undo history in memory, and in its journals.
    var memoryBytes: Int { store.memoryBytes }
    var diskBytes: Int { store.diskBytes }

    /// Waits for every write in flight and makes the journals durable; when the daemon leaves.
    func settle() {
        store.settleAll()
        syncNow()
    }

    /// Makes what was written durable now, without waiting on writes in flight.
    func syncNow() {
        if store.hasUnsyncedWrites { _ = store.sync() }
    }

    /// Wall-clock seconds, for document retention (the undo model reads no clock).
    static func wallClock() -> Int64 {
        Int64(time(nil))
    }

    /// What became of a history found in another state directory at
    /// start, as `Stats`' `undo-history` says it; nil when there was none.
    private(set) var adoptedHistory: String?

    /// Moves the undo history kept in `other` (by another way of starting
    /// menubusd) into the one in use, merging when both have journals, and
    /// says what it did in one log line and in `adoptedHistory`. At start,
    /// before `loadDocuments`.
    /// False when another menubusd uses `other` (it holds its lock), whose
    /// history then stays there.
    @discardableResult
    func adoptHistory(from other: String) -> Bool {
        guard let report = UndoHistoryMerge.merge(from: other, into: configuredDirectory), !report.isEmpty else { return true }
        guard !report.inUse else {
            Log.info("undo history of \(other) left there: another menubusd (another session of this user) uses it")
            return false
        }
        var text = "undo history of \(other) moved into \(configuredDirectory): \(report.moved) journals"
        if report.mergedTwo {
            text += "; both held a history, merged: \(report.existing) journals were here"
            if report.inBoth > 0 {
                text += ", \(report.inBoth) documents were in both and the newer journal of each was kept"
                    + " (\(report.replaced) from \(other))"
            }
        }
        if report.leftReadOnly > 0 {
            text += "; \(report.leftReadOnly) originals stay in \(other), which is read-only"
        }
        if !report.failures.isEmpty {
            text += "; \(report.failures.count) files stay in \(other): \(report.failures[0])"
        }
        if report.failures.isEmpty { Log.info(text) } else { Log.warning(text) }
        adoptedHistory = [adoptedHistory, text].compactMap { $0 }.joined(separator: "; ")
        return true
    }

    /// Locks the state directory for this daemon's life, so another
    /// menubusd of this user does not move its history away; says so when
    /// one already holds it (two sessions with one state directory).
    func lockStateDirectory() {
        switch UndoHistoryMerge.lockStateDirectory(configuredDirectory) {
        case .held(let fd): stateLock = fd
        case .busy: Log.warning("another menubusd (another session of this user?) keeps its undo history in \(configuredDirectory) too")
        case .unavailable: break
        }
    }

    /// Lets the state directory's lock go, as the daemon leaves (before its
    /// name, so a replacing daemon finds it free).
    func unlockStateDirectory() {
        if let stateLock { UndoFiles.close(stateLock) }
        stateLock = nil
    }

    /// Lists the journals (each is read on its document's first use) and
    /// applies the retention bound; at start.
    func loadDocuments() {
        startDiskThreads()
        // Groups left open by a previous run end as each journal is read.
        store.closesGroupsOnLoad = true
        let report = store.indexJournals()
        for finding in report.findings { Log.warning("undo journal: \(finding)") }
        if store.documentCount > 0 {
            Log.info("found \(store.documentCount) undo journals in \(store.directory), read on first use")
        }
        closeOpenGroups(appId: nil)
        if let days = retentionDays {
            let removed = store.removeUntouched(olderThanSeconds: Int64(days) * 86_400, now: Undo.wallClock())
            if removed > 0 { Log.info("removed \(removed) undo documents untouched for \(days) days") }
        }
        logStorageProblems()
    }

    /// Storage problems, each logged once per document and cause.
    func logStorageProblems() {
        for problem in store.takeProblems() {
            let cause = problem.error.map { "\($0.call)|\($0.errno)" } ?? problem.detail
            Log.once("problem|\(problem.activity)|\(problem.key.map { "\($0)" } ?? "")|\(cause)", .error,
                     "undo journal: \(problem)")
        }
    }

    /// Ends the open undo groups of an app whose last connection left (of
    /// every app at start, when no app is connected), and says so.
    func closeOpenGroups(appId: String?) {
        store.closeOpenGroups(appId: appId, now: Undo.wallClock()) { [weak self] key, state in
            guard let self else { return }
            scheduleSync()
            logStorageProblems()
            Log.info("ended the undo groups \(key.appId) left open in a document")
            announce(appId: key.appId, documentId: key.documentId, state)
        }
    }

    /// Runs one undo operation for the caller's app id and answers `call`
    /// with `reply(outcome)` once its record is written, which happens off
    /// the loop: other calls are served meanwhile, and the document's later
    /// calls wait their turn (`UndoStore.submit`). Signals and recomposes
    /// when the state changed; schedules the journal sync.
    func perform(_ operation: UndoOperation, call: MethodCall, documentId: String,
                     reply: @escaping (UndoStore.Outcome) throws -> [DBusValue] = { _ in [] }) throws {
        let app = try contexts.registeredApp(call.sender)
        if operation.createsDocument, store.documentCount >= ServiceLimits.maxUndoDocuments,
           store.state(appId: app.appId, documentId: documentId) == nil {
            throw BusError(.limitExceeded, "documentId: menubusd holds \(ServiceLimits.maxUndoDocuments) undo documents, the most it keeps; clear some first")
        }
        let appId = app.appId
        let pending = call.deferReply()
        store.submit(operation, appId: appId, documentId: documentId, now: Undo.wallClock()) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let outcome):
                self.scheduleSync()
                self.logStorageProblems()
                if outcome.stateChanged { self.announce(appId: appId, documentId: documentId, outcome.state) }
                Undo.answer(pending) { try reply(outcome) }
            case .failure(let error):
                if case .storage(let code) = error.kind {
                    Log.once("storage|\(appId)|\(documentId)|\(code)", .error,
                             "undo journal of \(appId): \(error.message)")
                }
                self.logStorageProblems()
                pending.fail(error.busError)
            }
        }
    }

    /// Answers `call` with `body()` once the caller's document has no
    /// write in flight, so a read sees every step acknowledged before it.
    func whenDocumentIdle(_ call: MethodCall, documentId: String, _ body: @escaping () throws -> [DBusValue]) throws {
        let app = try contexts.registeredApp(call.sender)
        let pending = call.deferReply()
        store.whenIdle(appId: app.appId, documentId: documentId) {
            Undo.answer(pending, body)
        }
    }

    static func answer(_ pending: PendingReply, _ body: () throws -> [DBusValue]) {
        do {
            pending.reply(try body())
        } catch let error as BusError {
            pending.fail(error)
        } catch {
            pending.fail(BusError.failed("\(error)"))
        }
    }

    /// `UndoStateChanged` to the app id's own connections (never to other
    /// apps: a document's titles are its owner's), then `stateChanged`.
    private func announce(appId: String, documentId: String, _ state: UndoState) {
        let value = state.wireValue(titles: Localization.shared.titles())
        for app in contexts.byName.values where app.appId == appId {
            connection.emit(MenuBusAPI.Manager.undoStateChanged, at: MenuBusNames.managerPath,
                            appId, documentId, value, destination: app.uniqueName)
        }
        stateChanged(appId, documentId)
    }

    /// The edit menu's view of a context's document.
    func summary(appId: String, context: PublishedContext) -> UndoSummary? {
        guard let document = context.info.document else { return nil }
        defer { afterUndoRead() }
        return store.state(appId: appId, documentId: document)?.summary
    }

    /// A read may have brought a journal into memory (ending groups a
    /// previous run left open, repairing a torn tail): sync and log that.
    private func afterUndoRead() {
        guard store.hasUnsyncedWrites || store.hasProblems else { return }
        scheduleSync()
        logStorageProblems()
    }

    func state(caller: String, documentId: String) throws -> DBusValue {
        let app = try contexts.registeredApp(caller)
        defer { afterUndoRead() }
        let loaded: UndoState?
        do {
            loaded = try store.loadState(appId: app.appId, documentId: documentId)
        } catch {
            throw error.busError
        }
        guard let state = loaded else {
            throw BusError(.noSuchDocument, "documentId: \(ModelError.quoted(documentId)) has no undo history")
        }
        return state.wireValue(titles: Localization.shared.titles())
    }

    /// `ClearUndo`: the document goes, journal and all; `StorageFailed`,
    /// with the history as it was, when the journal cannot be removed.
    func clear(caller: String, documentId: String) throws {
        let app = try contexts.registeredApp(caller)
        defer { afterUndoRead() }
        guard store.state(appId: app.appId, documentId: documentId) != nil else {
            throw BusError(.noSuchDocument, "documentId: \(ModelError.quoted(documentId)) has no undo history")
        }
        do {
            try store.remove(appId: app.appId, documentId: documentId)
        } catch {
            throw error.busError
        }
        announce(appId: app.appId, documentId: documentId, UndoStack().state)
    }

    /// An app with no connection left keeps its history on disk, not in
    /// memory: its documents leave memory now, and those not durable yet
    /// after the next sync; the memory goes back to the system.
    func releaseMemory(of appId: String) {
        guard !contexts.isRegistered(appId: appId) else {
            toRelease.remove(appId)
            return
        }
        ledger.releasedMemory(store.release(appId: appId))
        if store.memoryBytes(of: appId) > 0 {
            toRelease.insert(appId)
            scheduleSync()
        } else {
            toRelease.remove(appId)
        }
    }

    /// The last connection of `appId` left: its open groups end, its documents leave memory.
    func appLeft(_ appId: String) {
        closeOpenGroups(appId: appId)
        releaseMemory(of: appId)
    }

    /// Group commit: one fdatasync for everything written in the last
    /// interval, run off the loop so no call waits on the disk.
    func scheduleSync() {
        guard !syncScheduled, !store.isSyncing, store.hasUnsyncedWrites else { return }
        syncScheduled = true
        loop.addTimer(after: UndoStore.syncInterval) { [weak self] in
            guard let self else { return }
            self.syncScheduled = false
            self.store.startSync { [weak self] in
                guard let self else { return }
                self.logStorageProblems()
                for appId in self.toRelease { self.releaseMemory(of: appId) }
                self.scheduleSync()
            }
        }
    }

    /// Operations' records, compactions and syncs are written off the
    /// loop; without a pipe to come back through, the store writes in place.
    private func startDiskThreads() {
        let executor = ThreadedUndoDiskExecutor { [weak self] in
            guard let self else { return }
            self.logStorageProblems()
            self.scheduleSync()
        }
        guard let executor else { return }
        loop.watch(fd: executor.wakeDescriptor) { [weak executor] in executor?.deliverCompletions() }
        store.executor = executor
    }

    /// The undo members of `org.menubus.MenuBus1`.
    func declare(in manager: inout Interface) {
        typealias API = MenuBusAPI.Manager
        // Each reply waits until its record is written (`perform`), so
        // every undo member answers later, with its declared outputs.
        manager.deferrableMethod(API.registerUndo) { [unowned self] call, documentId, actionName, undo, redo, options in
            let mergeKey = try Undo.mergeKey(options)
            let operation = UndoOperation.register(actionName: actionName, undo: undo, redo: redo, mergeKey: mergeKey)
            try self.perform(operation, call: call, documentId: documentId) { outcome in
                API.registerUndo.outputs.encode(UInt32(clamping: outcome.state.undoCount))
            }
            return nil
        }
        manager.deferrableMethod(API.beginUndoGroup) { [unowned self] call, documentId, actionName in
            try self.perform(.beginGroup(actionName: actionName), call: call, documentId: documentId)
            return nil
        }
        manager.deferrableMethod(API.endUndoGroup) { [unowned self] call, documentId in
            try self.perform(.endGroup, call: call, documentId: documentId)
            return nil
        }
        for (declared, operation) in [(API.undo, UndoOperation.undo), (API.redo, .redo)] {
            manager.deferrableMethod(declared) { [unowned self] call, documentId in
                try self.perform(operation, call: call, documentId: documentId) { outcome in
                    guard let move = outcome.move else { throw BusError.failed("internal error: \(declared.name) moved no step") }
                    return declared.outputs.encode(move.actionName, move.payloads)
                }
                return nil
            }
        }
        manager.deferrableMethod(API.getUndoState) { [unowned self] call, documentId in
            try self.whenDocumentIdle(call, documentId: documentId) { [unowned self] in
                API.getUndoState.outputs.encode(try self.state(caller: call.sender, documentId: documentId))
            }
            return nil
        }
        manager.deferrableMethod(API.setUndoLimit) { [unowned self] call, documentId, levels in
            try self.perform(.setLimit(levels: Int(levels)), call: call, documentId: documentId)
            return nil
        }
        manager.deferrableMethod(API.markClean) { [unowned self] call, documentId in
            try self.perform(.markClean, call: call, documentId: documentId)
            return nil
        }
        manager.deferrableMethod(API.clearUndo) { [unowned self] call, documentId in
            try self.whenDocumentIdle(call, documentId: documentId) { [unowned self] in
                try self.clear(caller: call.sender, documentId: documentId)
                return []
            }
            return nil
        }
        manager.signal(API.undoStateChanged)
    }

    /// `options.merge-key`, a string when present.
    package static func mergeKey(_ options: DBusValue) throws -> String {
        guard let entries = options.dictEntries else { return "" }
        var key = ""
        for entry in entries where entry.key == .string("merge-key") {
            guard case .variant(.string(let text)) = entry.value else {
                throw BusError.invalidArgs("options.merge-key: expected 's', got '\(entry.value.unwrapped.signature)'")
            }
            key = text
        }
        return key
    }
}

extension UndoError {
    /// The D-Bus error for this refusal (the table in `UndoError`).
    package var busError: BusError {
        switch kind {
        case .nothingToUndo: BusError(.nothingToUndo, description)
        case .nothingToRedo: BusError(.nothingToRedo, description)
        case .noSuchDocument: BusError(.noSuchDocument, description)
        case .limitExceeded: BusError(.limitExceeded, description)
        case .groupOpen: BusError(.undoGroupOpen, description)
        case .noOpenGroup: BusError(.noUndoGroup, description)
        case .invalidArgument: .invalidArgs(description)
        case .storage: BusError(.storageFailed, description)
        }
    }
}
