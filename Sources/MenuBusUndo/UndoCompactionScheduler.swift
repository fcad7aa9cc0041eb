import MenuBusModel

/// Each document's disk work in order (its lane), and the compaction state
/// machine: when a journal is compacted, the phases of a compaction off the
/// loop (`CompactionPhase`), and when the document's appends wait for it.
/// The executor runs the system calls.
final class UndoCompactionScheduler {
    /// A journal is compacted when larger than this many times its snapshot …
    static let compactionFactor = 2
    /// … plus this many bytes.
    static let compactionSlackBytes = 64 << 10

    var executor: any UndoDiskExecutor = InlineUndoDiskExecutor()
    private let notes: UndoStoreNotes
    /// Documents with disk work in flight (an append, a compaction's
    /// rename), and the work waiting for it, in order.
    private var lanes: [UndoDocumentKey: Lane] = [:]

    private struct Lane {
        /// Disk work in flight: an append or a compaction's rename, and a
        /// compaction holding the document's appends.
        var holds = 0
        var busy: Bool { holds > 0 }
        var waiting: [() -> Void] = []
    }

    init(notes: UndoStoreNotes) {
        self.notes = notes
    }

    // MARK: Lanes

    /// Some document has disk work in flight or waiting.
    var hasWorkInFlight: Bool { !lanes.isEmpty }

    /// The document has disk work in flight: its journal file is not to be
    /// replaced on the loop now.
    func isBusy(_ key: UndoDocumentKey) -> Bool {
        lanes[key]?.busy == true
    }

    /// No disk work of the document is in flight or waiting.
    func isIdle(_ key: UndoDocumentKey) -> Bool {
        lanes[key] == nil
    }

    /// Documents with disk work in flight or waiting.
    var keysWithWork: [UndoDocumentKey] { Array(lanes.keys) }

    /// Runs `work` once the document has no disk work in flight, after the
    /// work that waited before it; at once when there is none.
    func whenIdle(_ key: UndoDocumentKey, _ work: @escaping () -> Void) {
        if lanes[key] != nil {
            lanes[key]?.waiting.append(work)
        } else {
            work()
        }
    }

    func beginDiskWork(_ key: UndoDocumentKey) {
        lanes[key, default: Lane()].holds += 1
    }

    /// The document's disk work is done: runs what waited, in order, until
    /// one of them starts disk work again.
    func endDiskWork(_ key: UndoDocumentKey) {
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
    func settle(_ key: UndoDocumentKey) {
        while lanes[key]?.busy == true { executor.waitForAll() }
    }

    /// Blocks until no disk work is in flight (at shutdown).
    func settleAll() {
        while let key = lanes.first(where: { $0.value.busy })?.key { settle(key) }
        executor.waitForAll()
    }

    // MARK: Compaction

    /// After an operation: compacts the document's journal when it has
    /// outgrown the document, then holds the document's appends if a
    /// compaction off the loop lags behind them.
    func afterWrite(_ document: UndoDocument) {
        compactIfNeeded(document)
        holdAppendsIfCompactionLags(document)
    }

    private func compactIfNeeded(_ document: UndoDocument) {
        let journal = document.journal
        let live = document.stack.totalBytes
        guard journal.size > Self.compactionFactor * live + Self.compactionSlackBytes,
              journal.size >= journal.compactionRetrySize, !journal.compacting else { return }
        if executor.offloaded.contains(.snapshot) {
            journal.compaction = .copying(startSize: journal.size)
            let job = CompactionJob(document: document, journal: journal)
            executor.execute(.snapshot(job)) { [self] in finishSnapshot(job) }
            return
        }
        do {
            try journal.rewrite(document)
        } catch {
            failed(journal, document.key, error)
        }
    }

    /// A compaction off the loop copies what was appended while it ran; an
    /// app appending faster than that would keep it from finishing and
    /// grow the journal without bound. Once the journal has grown by half
    /// the live document since the snapshot began, the document's appends
    /// wait (their replies too) until the compaction is renamed. (Half, so
    /// the compacted file, about 1.5× the document, is below the next
    /// compaction's 2×: compactions do not follow each other at once.)
    private func holdAppendsIfCompactionLags(_ document: UndoDocument) {
        let journal = document.journal
        guard executor.offloaded.contains(.finish), case .copying(let startSize) = journal.compaction,
              journal.size - startSize > document.stack.totalBytes / 2 + Self.compactionSlackBytes else { return }
        journal.compaction = .holdingAppends
        beginDiskWork(document.key)
    }

    /// Back on the loop after the snapshot or a tail copy: copies the tail
    /// once more, finishes, or waits for the document's turn to finish.
    private func finishSnapshot(_ job: CompactionJob) {
        let journal = job.journal
        guard !journal.isRemoved else {
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
            executor.execute(.tailCopy(job)) { [self] in finishSnapshot(job) }
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
            failed(journal, job.key, error)
        }
        if journal.needsDirectorySync { notes.directoryNeedsSync = true }
    }

    /// With the document's lane held (its turn came, or its appends are
    /// held): the last tail copy and the rename off the loop, or the
    /// compaction given up (then the lane is let go).
    private func startFinish(_ job: CompactionJob) {
        let journal = job.journal
        guard !journal.isRemoved, journal.compactionIsCurrent(job) else {
            let failure = job.error
            journal.discardCompaction(job)
            if let failure { failed(journal, job.key, failure) }
            endDiskWork(job.key)
            return
        }
        journal.compaction = .finishing
        job.finalSize = journal.size
        job.oldFd = journal.detachDescriptor()
        executor.execute(.finish(job)) { [self] in finishRename(job) }
    }

    /// Back on the loop after the finish: the renamed snapshot replaces the
    /// journal; then what waited for the document runs.
    private func finishRename(_ job: CompactionJob) {
        let journal = job.journal
        do {
            try journal.adoptFinishedCompaction(job)
        } catch {
            failed(journal, job.key, error)
        }
        if journal.needsDirectorySync { notes.directoryNeedsSync = true }
        endDiskWork(job.key)
    }

    /// A compaction failed: noted, and not tried again before the journal grows some more.
    private func failed(_ journal: UndoJournal, _ key: UndoDocumentKey, _ error: UndoFileError) {
        journal.compactionRetrySize = journal.size + Self.compactionSlackBytes
        notes.problems.append(UndoStorageProblem(activity: "compaction", key: key, error: error))
    }
}
