#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

extension MenuBusServer {
    /// Wall-clock seconds, for document retention (the undo model reads no clock).
    static func wallClock() -> Int64 {
        Int64(time(nil))
    }

    /// Lists the journals (each is read on its document's first use) and
    /// applies the retention bound; at start.
    func loadUndoDocuments() {
        startUndoDiskThreads()
        // Groups left open by a previous run end as each journal is read.
        undoStore.closesGroupsOnLoad = true
        let report = undoStore.indexJournals()
        for finding in report.findings { Log.warning("undo journal: \(finding)") }
        if undoStore.documentCount > 0 {
            Log.info("found \(undoStore.documentCount) undo journals in \(undoStore.directory), read on first use")
        }
        closeOpenUndoGroups(appId: nil)
        if let days = configuration.undoRetentionDays {
            let removed = undoStore.removeUntouched(olderThanSeconds: Int64(days) * 86_400, now: MenuBusServer.wallClock())
            if removed > 0 { Log.info("removed \(removed) undo documents untouched for \(days) days") }
        }
        logStorageProblems()
    }

    /// Storage problems, each logged once per document and cause.
    func logStorageProblems() {
        for problem in undoStore.takeProblems() {
            let cause = problem.error.map { "\($0.call)|\($0.errno)" } ?? problem.detail
            Log.once("problem|\(problem.activity)|\(problem.key.map { "\($0)" } ?? "")|\(cause)", .error,
                     "undo journal: \(problem)")
        }
    }

    /// Ends the open undo groups of an app whose last connection left (of
    /// every app at start, when no app is connected), and says so.
    func closeOpenUndoGroups(appId: String?) {
        undoStore.closeOpenGroups(appId: appId, now: MenuBusServer.wallClock()) { [weak self] key, state in
            guard let self else { return }
            scheduleUndoSync()
            logStorageProblems()
            Log.info("ended the undo groups \(key.appId) left open in a document")
            undoStateChanged(appId: key.appId, documentId: key.documentId, state)
        }
    }

    /// Runs one undo operation for the caller's app id and answers `call`
    /// with `reply(outcome)` once its record is written, which happens off
    /// the loop: other calls are served meanwhile, and the document's later
    /// calls wait their turn (`UndoStore.submit`). Signals and recomposes
    /// when the state changed; schedules the journal sync.
    func performUndo(_ operation: UndoOperation, call: MethodCall, documentId: String,
                     reply: @escaping (UndoStore.Outcome) throws -> [DBusValue] = { _ in [] }) throws {
        let app = try registeredApp(call.sender)
        if operation.createsDocument, undoStore.documentCount >= ServiceLimits.maxUndoDocuments,
           undoStore.state(appId: app.appId, documentId: documentId) == nil {
            throw BusError(.limitExceeded, "documentId: menubusd holds \(ServiceLimits.maxUndoDocuments) undo documents, the most it keeps; clear some first")
        }
        let appId = app.appId
        let pending = call.deferReply()
        undoStore.submit(operation, appId: appId, documentId: documentId, now: MenuBusServer.wallClock()) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let outcome):
                self.scheduleUndoSync()
                self.logStorageProblems()
                if outcome.stateChanged { self.undoStateChanged(appId: appId, documentId: documentId, outcome.state) }
                MenuBusServer.answer(pending) { try reply(outcome) }
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
    func whenUndoDocumentIdle(_ call: MethodCall, documentId: String, _ body: @escaping () throws -> [DBusValue]) throws {
        let app = try registeredApp(call.sender)
        let pending = call.deferReply()
        undoStore.whenIdle(appId: app.appId, documentId: documentId) {
            MenuBusServer.answer(pending, body)
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
    /// apps: a document's titles are its owner's), and live edit menus.
    func undoStateChanged(appId: String, documentId: String, _ state: UndoState) {
        let value = state.wireValue(titles: Localization.shared.titles())
        for app in apps.values where app.appId == appId {
            connection.emit(MenuBusAPI.Manager.undoStateChanged, at: MenuBusNames.managerPath,
                            appId, documentId, value, destination: app.uniqueName)
        }
        for presentation in presentations.values where presentation.kind == .edit {
            guard let owner = apps[presentation.owner], owner.appId == appId,
                  owner.contexts[presentation.contextId]?.info.document == documentId else { continue }
            presentation.markStale()
            scheduleSignal(presentation)
        }
    }

    /// The edit menu's view of a context's document.
    func undoSummary(appId: String, context: PublishedContext) -> UndoSummary? {
        guard let document = context.info.document else { return nil }
        defer { afterUndoRead() }
        return undoStore.state(appId: appId, documentId: document)?.summary
    }

    /// A read may have brought a journal into memory (ending groups a
    /// previous run left open, repairing a torn tail): sync and log that.
    func afterUndoRead() {
        guard undoStore.hasUnsyncedWrites || undoStore.hasProblems else { return }
        scheduleUndoSync()
        logStorageProblems()
    }

    package func undoState(caller: String, documentId: String) throws -> DBusValue {
        let app = try registeredApp(caller)
        defer { afterUndoRead() }
        let loaded: UndoState?
        do {
            loaded = try undoStore.loadState(appId: app.appId, documentId: documentId)
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
    package func clearUndo(caller: String, documentId: String) throws {
        let app = try registeredApp(caller)
        defer { afterUndoRead() }
        guard undoStore.state(appId: app.appId, documentId: documentId) != nil else {
            throw BusError(.noSuchDocument, "documentId: \(ModelError.quoted(documentId)) has no undo history")
        }
        do {
            try undoStore.remove(appId: app.appId, documentId: documentId)
        } catch {
            throw error.busError
        }
        undoStateChanged(appId: app.appId, documentId: documentId, UndoStack().state)
    }

    /// An app with no connection left keeps its history on disk, not in
    /// memory: its documents leave memory now, and those not durable yet
    /// after the next sync; the memory goes back to the system.
    func releaseUndoMemory(of appId: String) {
        guard !apps.values.contains(where: { $0.appId == appId }) else {
            undoToRelease.remove(appId)
            return
        }
        releasedMemory(undoStore.release(appId: appId))
        if undoStore.memoryBytes(of: appId) > 0 {
            undoToRelease.insert(appId)
            scheduleUndoSync()
        } else {
            undoToRelease.remove(appId)
        }
    }

    /// Group commit: one fdatasync for everything written in the last
    /// interval, run off the loop so no call waits on the disk.
    func scheduleUndoSync() {
        guard !undoSyncScheduled, !undoStore.isSyncing, undoStore.hasUnsyncedWrites else { return }
        undoSyncScheduled = true
        loop.addTimer(after: UndoStore.syncInterval) { [weak self] in
            guard let self else { return }
            self.undoSyncScheduled = false
            self.undoStore.startSync { [weak self] in
                guard let self else { return }
                self.logStorageProblems()
                for appId in self.undoToRelease { self.releaseUndoMemory(of: appId) }
                self.scheduleUndoSync()
            }
        }
    }

    /// Operations' records, compactions and syncs are written off the
    /// loop; without a pipe to come back through, the store writes in place.
    func startUndoDiskThreads() {
        let executor = ThreadedUndoDiskExecutor { [weak self] in
            guard let self else { return }
            self.logStorageProblems()
            self.scheduleUndoSync()
        }
        guard let executor else { return }
        loop.watch(fd: executor.wakeDescriptor) { [weak executor] in executor?.deliverCompletions() }
        undoStore.executor = executor
    }

    /// The undo members of `org.menubus.MenuBus1`.
    func declareUndo(in manager: inout Interface) {
        typealias API = MenuBusAPI.Manager
        // Each reply waits until its record is written (`performUndo`), so
        // every undo member answers later, with its declared outputs.
        manager.deferrableMethod(API.registerUndo) { [unowned self] call, documentId, actionName, undo, redo, options in
            let mergeKey = try MenuBusServer.mergeKey(options)
            let operation = UndoOperation.register(actionName: actionName, undo: undo, redo: redo, mergeKey: mergeKey)
            try self.performUndo(operation, call: call, documentId: documentId) { outcome in
                API.registerUndo.outputs.encode(UInt32(clamping: outcome.state.undoCount))
            }
            return nil
        }
        manager.deferrableMethod(API.beginUndoGroup) { [unowned self] call, documentId, actionName in
            try self.performUndo(.beginGroup(actionName: actionName), call: call, documentId: documentId)
            return nil
        }
        manager.deferrableMethod(API.endUndoGroup) { [unowned self] call, documentId in
            try self.performUndo(.endGroup, call: call, documentId: documentId)
            return nil
        }
        for (declared, operation) in [(API.undo, UndoOperation.undo), (API.redo, .redo)] {
            manager.deferrableMethod(declared) { [unowned self] call, documentId in
                try self.performUndo(operation, call: call, documentId: documentId) { outcome in
                    guard let move = outcome.move else { throw BusError.failed("internal error: \(declared.name) moved no step") }
                    return declared.outputs.encode(move.actionName, move.payloads)
                }
                return nil
            }
        }
        manager.deferrableMethod(API.getUndoState) { [unowned self] call, documentId in
            try self.whenUndoDocumentIdle(call, documentId: documentId) { [unowned self] in
                API.getUndoState.outputs.encode(try self.undoState(caller: call.sender, documentId: documentId))
            }
            return nil
        }
        manager.deferrableMethod(API.setUndoLimit) { [unowned self] call, documentId, levels in
            try self.performUndo(.setLimit(levels: Int(levels)), call: call, documentId: documentId)
            return nil
        }
        manager.deferrableMethod(API.markClean) { [unowned self] call, documentId in
            try self.performUndo(.markClean, call: call, documentId: documentId)
            return nil
        }
        manager.deferrableMethod(API.clearUndo) { [unowned self] call, documentId in
            try self.whenUndoDocumentIdle(call, documentId: documentId) { [unowned self] in
                try self.clearUndo(caller: call.sender, documentId: documentId)
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
