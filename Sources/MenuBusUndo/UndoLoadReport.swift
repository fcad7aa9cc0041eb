import MenuBusModel

/// What `UndoStore.loadAll()` found: the documents it loaded and what was
/// wrong with any journal. The service logs the findings (they never hold
/// a payload or a document id's text) and may clear damaged documents.
package struct UndoLoadReport: Hashable, Sendable {
    /// Documents loaded, each with its whole history or, for a damaged
    /// journal, the part before the damage.
    var documents: [UndoDocumentKey] = []
    package var findings: [UndoLoadFinding] = []
}

/// Something wrong with one journal file (or the directory) at loading.
package struct UndoLoadFinding: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        /// The file ended inside its last record (a write cut short by a
        /// crash), or in zero bytes: cut back to the last good record;
        /// everything before loaded. A killed daemon leaves this only for
        /// an operation it had not acknowledged; a power loss can also
        /// take acknowledged operations that were not yet synced.
        case tornTail(bytesCut: Int)
        /// A bad record with more after it. Everything before it loaded;
        /// the rest (`bytesNotLoaded`) is not read. The file is kept as
        /// `<name>.damaged` (until the document is removed) and the journal
        /// is rewritten from what loaded. The history is now a prefix: its
        /// newest steps are missing while the app's content may include
        /// them, so the service may prefer to clear the document.
        case damaged(offset: Int, bytesNotLoaded: Int, reason: String)
        /// No usable header (another format version, or damage in the first
        /// record): the document is unknown, the file is left untouched.
        case unreadable(reason: String)
        /// A file torn inside its first record (a crash while creating a
        /// document, before its first operation was acknowledged): removed.
        case discarded
        /// A second file for a document already loaded: not loaded, left as is.
        case duplicate
        /// A system call failed (the directory, a read, a repair).
        case failed(UndoFileError)
    }

    /// The file's name in the directory (empty for the directory itself).
    var fileName: String
    var key: UndoDocumentKey?
    /// Records loaded from the file.
    var recordsLoaded: Int
    var kind: Kind

    package var description: String {
        let subject = fileName.isEmpty ? "undo journal directory" : "undo journal \(fileName)"
        switch kind {
        case let .tornTail(bytes):
            return "\(subject): torn tail of \(bytes) bytes cut after \(recordsLoaded) records"
        case let .damaged(offset, notLoaded, reason):
            return "\(subject): \(reason) at byte \(offset); loaded \(recordsLoaded) records, "
                + "\(notLoaded) bytes not loaded, the file kept as \(fileName).damaged"
        case let .unreadable(reason):
            return "\(subject): not loaded, \(reason)"
        case .discarded:
            return "\(subject): removed, torn before its first operation"
        case .duplicate:
            return "\(subject): not loaded, another journal holds the same document"
        case let .failed(error):
            return "\(subject): \(error)"
        }
    }
}

/// A journal that could not be synced, compacted or removed, or a load
/// finding when `perform` had to load first. Operations still succeed or
/// fail on their own; these are for the log.
package struct UndoStorageProblem: Hashable, Sendable, CustomStringConvertible {
    /// What the store was doing: "sync", "compaction", "removal", "loading".
    package var activity: String
    package var key: UndoDocumentKey?
    /// The failed call, when one failed.
    package var error: UndoFileError?
    /// A sentence, for a load finding.
    package var detail: String = ""

    package var description: String {
        if !detail.isEmpty { return detail }
        return "undo \(activity)" + (key.map { " of \($0)" } ?? "") + " failed" + (error.map { ": \($0)" } ?? "")
    }
}
