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
        startBackgroundCompactions()
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
        let closed = undoStore.closeOpenGroups(appId: appId, now: MenuBusServer.wallClock())
        guard !closed.isEmpty else { return }
        scheduleUndoSync()
        logStorageProblems()
        for (key, state) in closed {
            Log.info("ended the undo groups \(key.appId) left open in a document")
            undoStateChanged(appId: key.appId, documentId: key.documentId, state)
        }
    }

    /// Runs one undo operation for the caller's app id; signals and
    /// recomposes when the state changed; schedules the journal sync.
    func performUndo(_ operation: UndoOperation, caller: String, documentId: String) throws -> UndoStore.Outcome {
        let app = try registeredApp(caller)
        if operation.createsDocument, undoStore.documentCount >= ServiceLimits.maxUndoDocuments,
           undoStore.state(appId: app.appId, documentId: documentId) == nil {
            throw BusError(.limitExceeded, "documentId: menubusd holds \(ServiceLimits.maxUndoDocuments) undo documents, the most it keeps; clear some first")
        }
        let outcome: UndoStore.Outcome
        do {
            outcome = try undoStore.perform(operation, appId: app.appId, documentId: documentId, now: MenuBusServer.wallClock())
        } catch {
            if case .storage(let code) = error.kind {
                Log.once("storage|\(app.appId)|\(documentId)|\(code)", .error,
                         "undo journal of \(app.appId): \(error.message)")
            }
            throw error.busError
        }
        scheduleUndoSync()
        logStorageProblems()
        if outcome.stateChanged { undoStateChanged(appId: app.appId, documentId: documentId, outcome.state) }
        return outcome
    }

    /// `UndoStateChanged` to the app id's own connections (never to other
    /// apps: a document's titles are its owner's), and live edit menus.
    func undoStateChanged(appId: String, documentId: String, _ state: UndoState) {
        let value = MenuBusServer.undoStateValue(state)
        for app in apps.values where app.appId == appId {
            connection.emit(MenuBusNames.managerPath, MenuBusNames.managerInterface, "UndoStateChanged",
                            [.string(appId), .string(documentId), value], destination: app.uniqueName)
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
        return MenuBusServer.undoStateValue(state)
    }

    /// `ClearUndo`: the document goes, journal and all.
    package func clearUndo(caller: String, documentId: String) throws {
        let app = try registeredApp(caller)
        defer { afterUndoRead() }
        guard undoStore.state(appId: app.appId, documentId: documentId) != nil else {
            throw BusError(.noSuchDocument, "documentId: \(ModelError.quoted(documentId)) has no undo history")
        }
        _ = undoStore.remove(appId: app.appId, documentId: documentId)
        undoStateChanged(appId: app.appId, documentId: documentId, UndoStack().state)
    }

    /// Group commit: one fdatasync for everything written in the last
    /// interval, run off the loop (UndoSyncer) so no call waits on the disk.
    func scheduleUndoSync() {
        guard !undoSyncScheduled, !(undoSyncer?.isSyncing ?? false), undoStore.hasUnsyncedWrites else { return }
        undoSyncScheduled = true
        loop.addTimer(after: UndoStore.syncInterval) { [weak self] in
            guard let self else { return }
            self.undoSyncScheduled = false
            self.startUndoSync()
        }
    }

    private func startUndoSync() {
        guard let syncer = undoSyncer else {
            // No pipe to come back through: sync on the loop.
            if !undoStore.sync() { logStorageProblems() }
            return
        }
        let batch = undoStore.prepareBackgroundSync()
        logStorageProblems()
        guard !batch.jobs.isEmpty || batch.directory != nil else {
            scheduleUndoSync()
            return
        }
        let box = SyncResultBox()
        syncer.isSyncing = true
        syncer.run({ box.result = UndoStore.runSync(batch) }) { [weak self] in
            guard let self else { return }
            syncer.isSyncing = false
            if let result = box.result { self.undoStore.finishBackgroundSync(result) }
            self.logStorageProblems()
            self.scheduleUndoSync()
        }
    }

    /// Compaction snapshots are written off the loop too.
    func startBackgroundCompactions() {
        guard let syncer = undoSyncer else { return }
        undoStore.compactor = { [weak self] job in
            syncer.run({ UndoJournal.runCompaction(job) }) {
                guard let self else { return }
                self.undoStore.finishCompaction(job)
                self.logStorageProblems()
                self.scheduleUndoSync()
            }
        }
        // What was appended while the snapshot was written is copied off the loop too.
        undoStore.tailCopier = { [weak self] job in
            syncer.run({ UndoJournal.runTailCopy(job) }) {
                guard let self else { return }
                self.undoStore.finishCompaction(job)
                self.logStorageProblems()
                self.scheduleUndoSync()
            }
        }
    }

    static func undoStateValue(_ state: UndoState) -> DBusValue {
        .array("{sv}", [
            .dictEntry(.string("can-undo"), .variant(.boolean(state.canUndo))),
            .dictEntry(.string("can-redo"), .variant(.boolean(state.canRedo))),
            .dictEntry(.string("undo-title"), .variant(.string(state.undoTitle))),
            .dictEntry(.string("redo-title"), .variant(.string(state.redoTitle))),
            .dictEntry(.string("undo-count"), .variant(.uint32(UInt32(clamping: state.undoCount)))),
            .dictEntry(.string("redo-count"), .variant(.uint32(UInt32(clamping: state.redoCount)))),
            .dictEntry(.string("clean"), .variant(.boolean(state.clean))),
            .dictEntry(.string("dropped"), .variant(.uint32(UInt32(clamping: state.dropped)))),
            .dictEntry(.string("group-depth"), .variant(.uint32(UInt32(clamping: state.groupDepth)))),
            .dictEntry(.string("group-name"), .variant(.string(state.openGroup ?? ""))),
        ])
    }

    /// The undo members of `org.menubus.MenuBus1`.
    func declareUndo(in manager: inout Interface) {
        let document = arg("documentId", String.self)
        manager.method("RegisterUndo", in: [document, arg("actionName", String.self), arg("undoData", [UInt8].self),
                                            arg("redoData", [UInt8].self), arg("options", [String: DBusValue].self)],
                       out: [arg("undoCount", UInt32.self)]) { [unowned self] call in
            let mergeKey = try MenuBusServer.mergeKey(call.arguments[4])
            let operation = UndoOperation.register(actionName: try call.argument(1), undo: try call.argument(2),
                                                   redo: try call.argument(3), mergeKey: mergeKey)
            let outcome = try self.performUndo(operation, caller: call.sender, documentId: try call.argument(0))
            return [.uint32(UInt32(clamping: outcome.state.undoCount))]
        }
        manager.method("BeginUndoGroup", in: [document, arg("actionName", String.self)]) { [unowned self] call in
            _ = try self.performUndo(.beginGroup(actionName: try call.argument(1)), caller: call.sender, documentId: try call.argument(0))
            return []
        }
        manager.method("EndUndoGroup", in: [document]) { [unowned self] call in
            _ = try self.performUndo(.endGroup, caller: call.sender, documentId: try call.argument(0))
            return []
        }
        for (member, operation) in [("Undo", UndoOperation.undo), ("Redo", .redo)] {
            manager.method(member, in: [document], out: [arg("actionName", String.self), arg("payloads", [[UInt8]].self)]) {
                [unowned self] call in
                let outcome = try self.performUndo(operation, caller: call.sender, documentId: try call.argument(0))
                guard let move = outcome.move else { throw BusError.failed("internal error: \(member) moved no step") }
                return [.string(move.actionName), .array("ay", move.payloads.map(DBusValue.bytes))]
            }
        }
        manager.method("GetUndoState", in: [document], out: [arg("state", [String: DBusValue].self)]) { [unowned self] call in
            [try self.undoState(caller: call.sender, documentId: try call.argument(0))]
        }
        manager.method("SetUndoLimit", in: [document, arg("levels", UInt32.self)]) { [unowned self] call in
            let levels: UInt32 = try call.argument(1)
            _ = try self.performUndo(.setLimit(levels: Int(levels)), caller: call.sender, documentId: try call.argument(0))
            return []
        }
        manager.method("MarkClean", in: [document]) { [unowned self] call in
            _ = try self.performUndo(.markClean, caller: call.sender, documentId: try call.argument(0))
            return []
        }
        manager.method("ClearUndo", in: [document]) { [unowned self] call in
            try self.clearUndo(caller: call.sender, documentId: try call.argument(0))
            return []
        }
        manager.signal("UndoStateChanged", [arg("appId", String.self), document, arg("state", [String: DBusValue].self)])
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

/// Carries a sync's result from the queue to the loop (written before, read
/// after the pipe's wake-up).
private final class SyncResultBox: @unchecked Sendable {
    var result: UndoStore.SyncResult?
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
