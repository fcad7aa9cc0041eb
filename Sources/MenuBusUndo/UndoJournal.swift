import MenuBusModel

/// The append-only journal of one document: one file in the store's
/// directory (`UndoFileName`), a sequence of checksummed records
/// (`UndoRecord`) whose replay rebuilds the document's stack exactly.
///
/// - **Appending.** `append` writes a whole record batch with write(2)
///   before it returns, so once an operation is acknowledged it is in the
///   kernel: a killed daemon (SIGKILL, a crash) loses nothing. A failed or
///   short write is cut back off (ftruncate to the last good size); if
///   even that fails the journal is `isBroken` and is rewritten from the
///   stack before the next append.
/// - **Off the loop.** With an executor that takes appends the store encodes and
///   writes a record on another thread (`AppendJob`, through a duplicate of
///   the descriptor) and calls `appended` or `appendCouldNotBeCut` on the
///   loop when it is done; one append per journal is in flight at a time.
/// - **Durability.** Appends do not fsync. The store's sync (fdatasync)
///   makes them durable for every journal with unsynced writes when the
///   service asks (group commit, see `UndoStore`).
/// - **Compaction.** `rewrite(_:)` writes a snapshot of the document to
///   `<name>.tmp`, fsyncs it, renames it over the journal and fsyncs the
///   directory: a crash leaves either the old journal or the new one.
/// - **Loading.** `replay(_:limits:)` (`UndoJournal+Replay.swift`).
///
/// The descriptor stays open between appends; the store closes the least
/// recently used ones beyond `UndoResidency.maxOpenJournals`.
package final class UndoJournal {
    package let directory: String
    let fileName: String
    /// Bytes in the file: every record written and not cut.
    package private(set) var size: Int
    /// Records written since the last `sync()`.
    package private(set) var hasUnsyncedWrites = false
    /// Appends and rewrites so far: a background sync started at one count
    /// covers the writes up to it only.
    private(set) var writeCount = 0
    /// Whole-file rewrites so far (a compaction in flight checks it).
    private(set) var rewrites = 0
    /// Where a background compaction of this journal stands (`UndoCompactionScheduler`
    /// moves it; a compaction is one snapshot, tail copies, then a finish).
    var compaction: CompactionPhase = .none
    /// A background compaction is under way.
    var compacting: Bool { compaction != .none }
    /// The file's name (creation) or its replacement (compaction) may not
    /// be durable until the directory is synced.
    var needsDirectorySync = false
    /// The store removed the document: a compaction in flight is dropped.
    private(set) var isRemoved = false
    /// A failed write could not be cut back: rewrite before appending.
    private(set) var isBroken = false
    /// Do not try to compact again before the file reaches this size
    /// (after a failed compaction).
    var compactionRetrySize = 0
    private var fd: Int32 = -1

    package var path: String { directory + "/" + fileName }
    var isOpen: Bool { fd >= 0 }

    /// A journal that exists with this many good bytes.
    package init(directory: String, fileName: String, size: Int) {
        self.directory = directory
        self.fileName = fileName
        self.size = size
    }

    deinit {
        closeFile()
    }

    /// Creates the file of a new document, probing `-1`, `-2`… past names
    /// that `isTaken` or that exist on disk.
    package static func create(in directory: String, for key: UndoDocumentKey,
                       isTaken: (String) -> Bool) throws(UndoFileError) -> UndoJournal {
        for probe in 0..<1_000 {
            let name = UndoFileName.name(for: key, probe: probe)
            guard !isTaken(name) else { continue }
            let fd: Int32
            do {
                fd = try UndoFiles.openForAppending(directory + "/" + name, create: true)
            } catch where error.isAlreadyExists {
                continue
            }
            let journal = UndoJournal(directory: directory, fileName: name, size: 0)
            journal.fd = fd
            journal.needsDirectorySync = true
            return journal
        }
        throw .exists("open", directory)
    }

    /// Writes `bytes` (whole records) at the end of the file.
    package func append(_ bytes: [UInt8]) throws(UndoFileError) {
        guard !isBroken else { throw .io("write", path) }
        try open()
        do {
            try UndoFiles.write(fd, bytes, path: path)
        } catch {
            do {
                try UndoFiles.truncate(fd, to: size, path: path)
            } catch _ {
                isBroken = true
                closeFile()
            }
            throw error
        }
        size += bytes.count
        hasUnsyncedWrites = true
        writeCount += 1
    }

    /// A duplicate descriptor for one append off the loop (`AppendJob`),
    /// opening the file first if the store closed it.
    func appendDescriptor() throws(UndoFileError) -> Int32 {
        guard !isBroken else { throw .io("write", path) }
        try open()
        let copy = UndoFiles.duplicate(fd)
        guard copy >= 0 else { throw .io("fcntl", path) }
        return copy
    }

    /// An append made off the loop wrote `count` bytes.
    package func appended(_ count: Int) {
        size += count
        hasUnsyncedWrites = true
        writeCount += 1
    }

    /// An append made off the loop failed and could not be cut back: the
    /// file is rewritten from the stack before the next append.
    func appendCouldNotBeCut() {
        isBroken = true
        closeFile()
    }

    /// Replaces the file with a snapshot of `document`: temp file, fsync,
    /// rename, fsync of the directory. On failure the old file is intact.
    package func rewrite(_ document: UndoDocument) throws(UndoFileError) {
        let temporary = path + ".tmp"
        let newFd = try UndoFiles.openForRewriting(temporary)
        var written = 0
        do {
            var buffer: [UInt8] = []
            buffer.reserveCapacity(UndoJournal.snapshotChunkBytes + 4096)
            try UndoJournal.snapshotRecords(of: document) { record throws(UndoFileError) in
                record.encode(into: &buffer)
                if buffer.count >= UndoJournal.snapshotChunkBytes {
                    try UndoFiles.write(newFd, buffer, path: temporary)
                    written += buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try UndoFiles.write(newFd, buffer, path: temporary)
            written += buffer.count
            try UndoFiles.syncData(newFd, path: temporary)
            try UndoFiles.rename(temporary, to: path)
        } catch {
            UndoFiles.close(newFd)
            try? UndoFiles.remove(temporary)
            throw error
        }
        closeFile()
        fd = newFd
        size = written
        hasUnsyncedWrites = false
        writeCount += 1
        rewrites += 1
        isBroken = false
        compactionRetrySize = 0
        do {
            try UndoFiles.syncDirectory(directory)
        } catch _ {
            needsDirectorySync = true
        }
    }

    /// Takes the compacted file (renamed over the journal, synced); syncs
    /// the directory unless that was done off the loop (`directorySynced`).
    func adoptCompacted(fd newFd: Int32, size newSize: Int, directorySynced: Bool? = nil) {
        fd = newFd
        size = newSize
        hasUnsyncedWrites = false
        writeCount += 1
        rewrites += 1
        compactionRetrySize = 0
        if let directorySynced {
            if !directorySynced { needsDirectorySync = true }
            return
        }
        do {
            try UndoFiles.syncDirectory(directory)
        } catch _ {
            needsDirectorySync = true
        }
    }

    /// The file could not be repaired (a torn tail not cut): rewrite it
    /// from the stack before the next append.
    func markBroken() {
        isBroken = true
        // What was written is not trusted to be on disk: the rewrite replaces it.
        hasUnsyncedWrites = false
    }

    /// A duplicate of the open descriptor for a sync on another thread
    /// (closing this journal's own then cannot pull it away), or -1.
    func duplicateDescriptor() -> Int32 {
        fd >= 0 ? UndoFiles.duplicate(fd) : -1
    }

    /// A background sync that began at `count` succeeded.
    package func synced(upTo count: Int) {
        if writeCount == count { hasUnsyncedWrites = false }
    }

    /// Gives up the open descriptor (or -1) to the caller, who closes it.
    func detachDescriptor() -> Int32 {
        defer { fd = -1 }
        return fd
    }

    /// Takes back a descriptor `detachDescriptor` gave, unless the file was opened again meanwhile.
    func restoreDescriptor(_ old: Int32) {
        if fd < 0 { fd = old } else { UndoFiles.close(old) }
    }

    /// Closes the descriptor; unsynced writes stay pending for `sync()`.
    func closeFile() {
        guard fd >= 0 else { return }
        UndoFiles.close(fd)
        fd = -1
    }

    /// Removes the file and any damaged copy kept beside it.
    func removeFiles() throws(UndoFileError) {
        isRemoved = true
        closeFile()
        hasUnsyncedWrites = false
        try UndoFiles.remove(path)
        try UndoFiles.remove(UndoJournal.damagedPath(of: path))
    }

    /// Where a damaged journal is kept: `<name>.damaged`.
    static func damagedPath(of path: String) -> String {
        path + ".damaged"
    }

    /// Snapshot records are written in chunks of about this many bytes.
    static let snapshotChunkBytes = 256 << 10

    private func open() throws(UndoFileError) {
        guard fd < 0 else { return }
        fd = try UndoFiles.openForAppending(path, create: false)
    }
}
