import MenuBusModel

extension UndoStore {
    /// Lists the directory (creating it if needed) at start: names and
    /// sizes only, no journal is read. Each journal is read on the first
    /// use of its document (`makeResident`, through `perform` and `state`),
    /// so start-up does not grow with the store, and a damaged or
    /// unreadable journal touches only its own document. Leftover
    /// `.undo.tmp` files are removed. Later calls list nothing more. When
    /// the directory cannot be made or listed, the finding says why and
    /// the next call or `perform` tries again.
    @discardableResult
    package func indexJournals() -> UndoLoadReport {
        var report = UndoLoadReport()
        guard !residency.isLoaded else { return report }
        let entries: [UndoFiles.Entry]
        do {
            try residency.prepareDirectory()
            entries = try UndoFiles.listEntries(directory)
        } catch {
            report.findings.append(UndoLoadFinding(fileName: "", key: nil, recordsLoaded: 0, kind: .failed(error)))
            return report
        }
        residency.isLoaded = true
        residency.reserve(entries.map(\.name))
        for entry in entries {
            if entry.name.hasSuffix(UndoFileName.temporarySuffix) {
                try? UndoFiles.remove(directory + "/" + entry.name)
                residency.release(entry.name)
                continue
            }
            guard entry.name.hasSuffix(UndoFileName.suffix) else { continue }
            residency.addPending(entry)
        }
        return report
    }

    /// Reads every journal in the directory now (`indexJournals()`, then
    /// each pending journal): the documents found, and findings for torn,
    /// damaged or unreadable files, each repaired as `UndoLoadFinding.Kind`
    /// says. For tools and tests; the service loads lazily.
    package func loadAll() -> UndoLoadReport {
        var report = indexJournals()
        guard residency.isLoaded else { return report }
        let files = residency.pending.values.joined().sorted { $0.name < $1.name }
        for file in files {
            let result = residency.load(file.name, counted: false)
            if let finding = result.finding { report.findings.append(finding) }
            if result.readError == nil { residency.dropPending(file, hash: UndoFileName.parse(file.name)?.hash ?? "") }
        }
        residency.enforceMemoryBudget()
        report.documents = (Array(documents.keys) + Array(evicted.keys))
            .sorted { ($0.appId, $0.documentId) < ($1.appId, $1.documentId) }
        return report
    }

    /// The document in memory, reading its journal if need be; nil when it has none.
    func resident(_ key: UndoDocumentKey) throws(UndoError) -> UndoDocument? {
        if !residency.isLoaded {
            // Without knowing the journals on disk, a new one could duplicate a document.
            let report = indexJournals()
            absorb(report)
            guard residency.isLoaded else {
                let failure = report.findings.lazy.compactMap { finding -> UndoFileError? in
                    if case let .failed(error) = finding.kind { return error }
                    return nil
                }.first ?? .io("opendir", directory)
                throw failure.undoError
            }
        }
        try makeResident(key)
        return documents[key]
    }

    /// `resident(_:)` for `operation`: one that cannot create a document
    /// finds none when the journals cannot be listed (an undo folder that
    /// cannot be made holds no history), rather than a storage error.
    func resident(_ key: UndoDocumentKey, for operation: UndoOperation) throws(UndoError) -> UndoDocument? {
        do {
            return try resident(key)
        } catch {
            guard operation.createsDocument || residency.isLoaded else {
                throw UndoError(kind: .noSuchDocument, field: "documentId", message: "the app has no such undo document")
            }
            throw error
        }
    }

    /// Brings a document into memory if its journal is on disk: dropped
    /// for the memory budget, or not read yet (then every pending journal
    /// whose name carries its hash is read). Nothing when there is none.
    func makeResident(_ key: UndoDocumentKey) throws(UndoError) {
        guard documents[key] == nil else { return }
        do {
            if try residency.reloadEvicted(key) {
                residency.enforceMemoryBudget(keeping: key)
                return
            }
        } catch {
            throw error.undoError(for: key)
        }
        guard let files = residency.pending[UndoFileName.hashText(of: key)] else { return }
        var readError: UndoFileError?
        for file in files.sorted(by: { $0.name < $1.name }) {
            if let error = loadPendingJournal(file) { readError = error }
        }
        if documents[key] == nil, let readError { throw readError.undoError(for: key) }
        if documents[key] != nil { residency.noteUse(key) }
        residency.enforceMemoryBudget(keeping: key)
    }

    /// Reads one pending journal; a read error leaves it pending.
    @discardableResult
    func loadPendingJournal(_ file: UndoResidency.PendingJournal) -> UndoFileError? {
        let result = residency.load(file.name, counted: false)
        if let error = result.readError {
            notes.problems.append(UndoStorageProblem(activity: "loading", key: nil, error: error,
                                                     detail: "\(file.name): \(error)"))
            return error
        }
        residency.dropPending(file, hash: UndoFileName.parse(file.name)?.hash ?? "")
        if let finding = result.finding { note(finding) }
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
        let files = residency.pending.values.joined().filter { $0.prefix == prefix }
        for file in files.sorted(by: { $0.name < $1.name }) {
            loadPendingJournal(file)
            residency.enforceMemoryBudget(keeping: nil)
        }
    }

    /// Findings of a load `perform` had to do (no `loadAll()` first) go to the problems.
    private func absorb(_ report: UndoLoadReport) {
        for finding in report.findings { note(finding) }
    }

    private func note(_ finding: UndoLoadFinding) {
        var error: UndoFileError?
        if case let .failed(failure) = finding.kind { error = failure }
        notes.problems.append(UndoStorageProblem(activity: "loading", key: finding.key, error: error,
                                                 detail: finding.description))
    }
}
