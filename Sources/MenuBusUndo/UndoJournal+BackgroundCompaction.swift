import MenuBusModel

/// Compaction off the loop: the snapshot of a copy of the document is
/// written and fsynced to its own temporary file on another thread; back on
/// the loop, the records appended meanwhile are copied after it, and the
/// file is renamed over the journal. A crash at any point leaves the old
/// journal (temporary files are removed at the next load).
package final class CompactionJob: @unchecked Sendable {
    let key: UndoDocumentKey
    let document: UndoDocument
    let journal: UndoJournal
    let temporary: String
    /// The journal's size and rewrites when the snapshot was taken.
    let startSize: Int
    let startRewrites: Int
    var written = 0
    var fd: Int32 = -1
    var error: UndoFileError?
    /// The journal's bytes up to here are in the temporary file, synced.
    var copied: Int
    /// The end of the next tail copy off the loop.
    var copyTarget = 0
    /// Tail copies done off the loop.
    var tailRounds = 0
    /// Where the journal ended when its last tail was copied off the loop
    /// and the file renamed (`runFinish`; the document's appends waited).
    var finalSize = 0
    /// `runFinish` renamed the snapshot over the journal …
    var renamed = false
    /// … and synced the directory.
    var directorySynced = false
    /// The journal's own descriptor, handed to `runFinish` to close after
    /// the rename: the last close of the replaced file frees its pages,
    /// milliseconds for a large journal, so not on the loop.
    var oldFd: Int32 = -1

    /// Tail copies off the loop before the loop copies what is left itself.
    static let maxTailRounds = 8
    /// A tail this small is copied on the loop at once.
    static let tailOnLoopBytes = 64 << 10

    init(document: UndoDocument, journal: UndoJournal) {
        key = document.key
        self.document = document
        self.journal = journal
        let base = journal.path.hasSuffix(UndoFileName.suffix) ? String(journal.path.dropLast(UndoFileName.suffix.count)) : journal.path
        temporary = base + ".compacting" + UndoFileName.temporarySuffix
        startSize = journal.size
        startRewrites = journal.rewrites
        copied = journal.size
    }
}

/// The phases of a compaction off the loop, as the loop sees them.
enum CompactionPhase: Equatable {
    case none
    /// The snapshot or a tail copy is written off the loop; the journal was
    /// `startSize` bytes long when the snapshot was taken.
    case copying(startSize: Int)
    /// The same, and the document's appends wait for the compaction: the
    /// journal outgrew the document meanwhile. The wait holds the
    /// document's lane until the rename is adopted.
    case holdingAppends
    /// The finish waits its turn behind the document's appends in flight.
    case finishQueued
    /// The last tail and the rename are written off the loop, the lane held.
    case finishing
}

extension UndoJournal {
    /// Runs on the background queue: the snapshot into the temporary file, fsynced.
    package static func runCompaction(_ job: CompactionJob) {
        do {
            let fd = try UndoFiles.openForRewriting(job.temporary)
            job.fd = fd
            var buffer: [UInt8] = []
            buffer.reserveCapacity(snapshotChunkBytes + 4096)
            var written = 0
            try snapshotRecords(of: job.document) { record throws(UndoFileError) in
                record.encode(into: &buffer)
                if buffer.count >= snapshotChunkBytes {
                    try UndoFiles.write(fd, buffer, path: job.temporary)
                    written += buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try UndoFiles.write(fd, buffer, path: job.temporary)
            written += buffer.count
            try UndoFiles.syncData(fd, path: job.temporary)
            job.written = written
        } catch {
            job.error = error
        }
    }

    /// Runs on the background queue: the journal's records from `copied` to
    /// `copyTarget` (appended while the snapshot or the last copy ran)
    /// after the snapshot, fsynced, so the loop has little left to copy.
    package static func runTailCopy(_ job: CompactionJob) {
        guard job.error == nil, job.copyTarget > job.copied else { return }
        do {
            let tail = try UndoFiles.read(job.journal.path, from: job.copied, count: job.copyTarget - job.copied)
            try UndoFiles.write(job.fd, tail, path: job.temporary)
            try UndoFiles.syncData(job.fd, path: job.temporary)
            job.copied = job.copyTarget
        } catch {
            job.error = error
        }
    }

    /// On the loop: whether to copy the tail off the loop once more before
    /// finishing (more than `tailOnLoopBytes` was appended meanwhile).
    func wantsTailRound(_ job: CompactionJob) -> Bool {
        job.error == nil && !isBroken && rewrites == job.startRewrites && size >= job.copied
            && size - job.copied > CompactionJob.tailOnLoopBytes && job.tailRounds < CompactionJob.maxTailRounds
    }

    /// Runs on the background queue while the document's appends wait
    /// (its lane in `UndoCompactionScheduler`): the journal's records from `copied` to
    /// `finalSize` after the snapshot, fsync, rename over the journal,
    /// fsync of the directory. Nothing of it on the loop.
    package static func runFinish(_ job: CompactionJob) {
        guard job.error == nil else { return }
        let path = job.journal.path
        do {
            if job.finalSize > job.copied {
                let tail = try UndoFiles.read(path, from: job.copied, count: job.finalSize - job.copied)
                try UndoFiles.write(job.fd, tail, path: job.temporary)
                try UndoFiles.syncData(job.fd, path: job.temporary)
                job.copied = job.finalSize
            }
            try UndoFiles.rename(job.temporary, to: path)
            job.renamed = true
        } catch {
            job.error = error
            return
        }
        if job.oldFd >= 0 {
            UndoFiles.close(job.oldFd)
            job.oldFd = -1
        }
        do {
            try UndoFiles.syncDirectory(job.journal.directory)
            job.directorySynced = true
        } catch _ {}
    }

    /// On the loop: the snapshot still describes this journal (not
    /// repaired, replaced or cut meanwhile) and nothing failed so far.
    func compactionIsCurrent(_ job: CompactionJob) -> Bool {
        job.error == nil && !isBroken && rewrites == job.startRewrites && size >= job.startSize
    }

    /// On the loop: gives up a compaction, its temporary file removed.
    func discardCompaction(_ job: CompactionJob) {
        compaction = .none
        if job.fd >= 0 { UndoFiles.close(job.fd) }
        job.fd = -1
        if !job.renamed { try? UndoFiles.remove(job.temporary) }
    }

    /// On the loop after `runFinish`: takes the renamed snapshot, or throws
    /// (the journal as it was) when a step failed.
    func adoptFinishedCompaction(_ job: CompactionJob) throws(UndoFileError) {
        guard job.renamed else {
            if job.oldFd >= 0 { restoreDescriptor(job.oldFd) }
            job.oldFd = -1
            discardCompaction(job)
            throw job.error ?? .io("rename", path)
        }
        compaction = .none
        closeFile()
        adoptCompacted(fd: job.fd, size: job.written + (job.finalSize - job.startSize), directorySynced: job.directorySynced)
    }

    /// On the loop: the tail written since the snapshot, then the rename.
    /// Throws (and leaves the journal as it was) when any step fails.
    package func finishCompaction(_ job: CompactionJob) throws(UndoFileError) {
        defer { compaction = .none }
        func discard() {
            if job.fd >= 0 { UndoFiles.close(job.fd) }
            try? UndoFiles.remove(job.temporary)
        }
        if let error = job.error {
            discard()
            throw error
        }
        // Repaired or replaced meanwhile: this snapshot is stale.
        guard compactionIsCurrent(job) else {
            discard()
            return
        }
        do {
            if size > job.copied {
                let tail = try UndoFiles.read(path, from: job.copied, count: size - job.copied)
                try UndoFiles.write(job.fd, tail, path: job.temporary)
                try UndoFiles.syncData(job.fd, path: job.temporary)
            }
            try UndoFiles.rename(job.temporary, to: path)
        } catch {
            discard()
            throw error
        }
        closeFile()
        adoptCompacted(fd: job.fd, size: job.written + (size - job.startSize))
    }
}

extension UndoJournal {
    /// The records that rebuild `document` exactly, in journal order:
    /// header, touched, the snapshot counters, every live step oldest
    /// first, then any open group as begin-group records and the group's
    /// registrations as register records.
    static func snapshotRecords<E: Error>(of document: UndoDocument,
                                          _ body: (UndoRecord) throws(E) -> Void) throws(E) {
        let stack = document.stack
        try body(.header(document.key))
        try body(.touched(document.lastTouched))
        let steps = stack.liveSteps
        try body(.snapshot(UndoRecord.Snapshot(stepCount: steps.count, undoCount: stack.undoCount,
                                               cleanUndoCount: stack.cleanUndoCount,
                                               dropped: stack.dropped, levels: stack.levels)))
        for step in steps { try body(.snapshotStep(step)) }
        for name in stack.groupNames { try body(.operation(.beginGroup(actionName: name))) }
        guard let group = stack.openGroupStep else { return }
        var registrations: [UndoOperation] = []
        group.forEachRegistration { undo, redo in
            registrations.append(.register(actionName: "", undo: Array(undo), redo: Array(redo), mergeKey: ""))
        }
        for registration in registrations { try body(.operation(registration)) }
    }
}
