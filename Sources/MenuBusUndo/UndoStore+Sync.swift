import MenuBusModel

/// Syncing, off the loop or not: the store hands out what to flush
/// (duplicated descriptors or paths), the executor's thread (or the
/// caller, in `sync()`) runs fdatasync and fsync, and the results come back
/// to the store on the loop. Appends go on meanwhile; a sync covers the
/// writes made before it began.
extension UndoStore {
    /// Makes every write so far durable: fdatasync of each journal written
    /// since the last sync, fsync of the directory when names changed, on
    /// the calling thread. Returns false when something failed (see `takeProblems()`).
    @discardableResult
    package func sync() -> Bool {
        finishBackgroundSync(Self.runSync(prepareBackgroundSync()))
    }

    /// `sync()`, with the system calls made by the executor when it takes
    /// syncs: `then` runs on the store's thread once the sync is done.
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

    package struct SyncJob: Sendable {
        package let key: UndoDocumentKey
        package let fd: Int32
        package let path: String
        let writeCount: Int
    }

    package struct SyncBatch: Sendable {
        package var jobs: [SyncJob]
        package var directory: String?
        /// A broken journal could not be rewritten while preparing.
        var rewriteFailed = false
    }

    package struct SyncResult: Sendable {
        package var failed: [UndoDocumentKey: UndoFileError] = [:]
        var succeeded: [(key: UndoDocumentKey, writeCount: Int)] = []
        var directoryError: UndoFileError?
        var directorySynced = false
        var rewriteFailed = false
    }

    /// What a background sync should flush now. Broken journals are
    /// rewritten here, on the loop, from memory (those with disk work in
    /// flight at a later sync).
    package func prepareBackgroundSync() -> SyncBatch {
        var jobs: [SyncJob] = []
        var rewriteFailed = false
        for key in Array(residency.unsynced) {
            guard let document = documents[key] else { continue }
            let journal = document.journal
            if journal.isBroken {
                guard !compactions.isBusy(key) else { continue }
                do {
                    try journal.rewrite(document)
                } catch {
                    notes.problems.append(UndoStorageProblem(activity: "rewrite", key: key, error: error))
                    rewriteFailed = true
                }
                continue
            }
            if journal.needsDirectorySync {
                journal.needsDirectorySync = false
                notes.directoryNeedsSync = true
            }
            guard journal.hasUnsyncedWrites else { continue }
            jobs.append(SyncJob(key: key, fd: journal.duplicateDescriptor(), path: journal.path, writeCount: journal.writeCount))
        }
        let directory = notes.directoryNeedsSync ? self.directory : nil
        notes.directoryNeedsSync = false
        return SyncBatch(jobs: jobs, directory: directory, rewriteFailed: rewriteFailed)
    }

    /// Runs on any thread: the system calls only.
    package static func runSync(_ batch: SyncBatch) -> SyncResult {
        var result = SyncResult()
        result.rewriteFailed = batch.rewriteFailed
        for job in batch.jobs {
            do {
                if job.fd >= 0 {
                    defer { UndoFiles.close(job.fd) }
                    try UndoFiles.syncData(job.fd, path: job.path)
                } else {
                    try UndoFiles.syncData(path: job.path)
                }
                result.succeeded.append((job.key, job.writeCount))
            } catch {
                result.failed[job.key] = error
            }
        }
        if let directory = batch.directory {
            do {
                try UndoFiles.syncDirectory(directory)
                result.directorySynced = true
            } catch {
                result.directoryError = error
            }
        }
        return result
    }

    /// Back on the loop. A failed fdatasync is not retried: the journal is
    /// written again from memory. Returns false when something failed.
    @discardableResult
    package func finishBackgroundSync(_ result: SyncResult) -> Bool {
        for (key, count) in result.succeeded { documents[key]?.journal.synced(upTo: count) }
        for (key, error) in result.failed {
            notes.problems.append(UndoStorageProblem(activity: "sync", key: key, error: error))
            guard let document = documents[key] else { continue }
            document.journal.markBroken()
            // A journal with disk work in flight is rewritten at a later sync.
            guard !compactions.isBusy(key) else { continue }
            do {
                try document.journal.rewrite(document)
            } catch {
                notes.problems.append(UndoStorageProblem(activity: "rewrite after a failed sync", key: key, error: error))
            }
        }
        if let error = result.directoryError {
            notes.problems.append(UndoStorageProblem(activity: "sync", key: nil, error: error))
            notes.directoryNeedsSync = true
        }
        residency.dropSyncedKeys()
        residency.enforceMemoryBudget(keeping: residency.mostRecentlyUsed)
        return result.failed.isEmpty && result.directoryError == nil && !result.rewriteFailed
    }
}
