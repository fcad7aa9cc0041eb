#if canImport(Glibc)
import Glibc
#endif

extension MenuBusServer {
    /// Wall-clock seconds, for document retention (the undo model reads no clock).
    static func wallClock() -> Int64 {
        Int64(time(nil))
    }

    /// Loads the journals and applies the retention bound; at start.
    func loadUndoDocuments() {
        let report = undoStore.loadAll()
        for finding in report.findings { Log.warning("undo journal: \(finding)") }
        if !report.documents.isEmpty { Log.info("loaded \(report.documents.count) undo documents from \(undoStore.directory)") }
        if let days = configuration.undoRetentionDays {
            let removed = undoStore.removeUntouched(olderThanSeconds: Int64(days) * 86_400, now: MenuBusServer.wallClock())
            if !removed.isEmpty { Log.info("removed \(removed.count) undo documents untouched for \(days) days") }
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
            throw error.busError
        }
        scheduleUndoSync()
        for problem in undoStore.takeProblems() { Log.warning("undo journal: \(problem)") }
        if outcome.stateChanged { undoStateChanged(appId: app.appId, documentId: documentId, outcome.state) }
        return outcome
    }

    /// `UndoStateChanged` to the app id's own connections (never to other
    /// apps: a document's titles are its owner's), and live edit menus.
    func undoStateChanged(appId: String, documentId: String, _ state: UndoState) {
        let value = MenuBusServer.undoStateValue(state)
        for app in apps.values where app.appId == appId {
            connection.emit(MenuBusServer.managerPath, MenuBusServer.managerInterface, "UndoStateChanged",
                            [.string(appId), .string(documentId), value], destination: app.uniqueName)
        }
        for presentation in presentations.values where presentation.kind == .edit {
            guard let owner = apps[presentation.owner], owner.appId == appId,
                  owner.contexts[presentation.contextId]?.info.document == documentId else { continue }
            presentation.isStale = true
            scheduleSignal(presentation)
        }
    }

    /// The edit menu's view of a context's document.
    func undoSummary(appId: String, context: PublishedContext) -> UndoSummary? {
        guard let document = context.info.document else { return nil }
        return undoStore.state(appId: appId, documentId: document)?.summary
    }

    func undoState(caller: String, documentId: String) throws -> DBusValue {
        let app = try registeredApp(caller)
        guard let state = undoStore.state(appId: app.appId, documentId: documentId) else {
            throw BusError(.noSuchDocument, "documentId: \(ModelError.quoted(documentId)) has no undo history")
        }
        return MenuBusServer.undoStateValue(state)
    }

    /// `ClearUndo`: the document goes, journal and all.
    func clearUndo(caller: String, documentId: String) throws {
        let app = try registeredApp(caller)
        guard undoStore.state(appId: app.appId, documentId: documentId) != nil else {
            throw BusError(.noSuchDocument, "documentId: \(ModelError.quoted(documentId)) has no undo history")
        }
        _ = undoStore.remove(appId: app.appId, documentId: documentId)
        undoStateChanged(appId: app.appId, documentId: documentId, UndoStack().state)
    }

    /// Group commit: one fdatasync for everything written in the last interval.
    func scheduleUndoSync() {
        guard !undoSyncScheduled, undoStore.hasUnsyncedWrites else { return }
        undoSyncScheduled = true
        loop.addTimer(after: UndoStore.syncInterval) { [weak self] in
            guard let self else { return }
            self.undoSyncScheduled = false
            if !self.undoStore.sync() {
                for problem in self.undoStore.takeProblems() { Log.error("undo journal: \(problem)") }
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
    static func mergeKey(_ options: DBusValue) throws -> String {
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
    var busError: BusError {
        switch kind {
        case .nothingToUndo: BusError(.nothingToUndo, description)
        case .nothingToRedo: BusError(.nothingToRedo, description)
        case .noSuchDocument: BusError(.noSuchDocument, description)
        case .limitExceeded: BusError(.limitExceeded, description)
        case .invalidArgument, .groupOpen, .noOpenGroup: .invalidArgs(description)
        case .storage: .failed(description)
        }
    }
}
