import MenuBusModel

/// One operation's records encoded, checksummed and written off the loop:
/// the store checks the operation and hands out a duplicate of the
/// journal's descriptor; another thread writes; back on the loop the store
/// applies the operation to the stack and answers (`UndoStore.submit`).
/// The reply waits for the write(2), so an acknowledged step is in the
/// kernel as before, and a killed daemon loses nothing it acknowledged.
package final class AppendJob: @unchecked Sendable {
    let key: UndoDocumentKey
    /// Touched on the loop only.
    let journal: UndoJournal
    let operation: UndoOperation
    let now: Int64
    /// A `touched` record goes first.
    let touch: Bool
    let fd: Int32
    let path: String
    /// The journal's size before: a failed write is cut back to it.
    let sizeBefore: Int
    /// Bytes of the records (`UndoRecord.encodedCount`).
    let count: Int
    /// Runs on the loop with the outcome.
    let done: (Result<UndoStore.Outcome, UndoError>) -> Void
    /// Set off the loop: the write failed …
    var error: UndoFileError?
    /// … and could not be cut back.
    var cutFailed = false
    /// Bytes written.
    var written = 0

    init(key: UndoDocumentKey, journal: UndoJournal, operation: UndoOperation, now: Int64, touch: Bool, fd: Int32,
         count: Int, done: @escaping (Result<UndoStore.Outcome, UndoError>) -> Void) {
        self.key = key
        self.journal = journal
        self.operation = operation
        self.now = now
        self.touch = touch
        self.fd = fd
        path = journal.path
        sizeBefore = journal.size
        self.count = count
        self.done = done
    }
}

extension UndoJournal {
    /// Runs on the append queue: encodes the records and writes them with
    /// one write(2); on failure cuts the file back to where it was.
    package static func runAppend(_ job: AppendJob) {
        defer { UndoFiles.close(job.fd) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(job.count)
        if job.touch { UndoRecord.touched(job.now).encode(into: &bytes) }
        UndoRecord.operation(job.operation).encode(into: &bytes)
        do {
            try UndoFiles.write(job.fd, bytes, path: job.path)
            job.written = bytes.count
        } catch {
            job.error = error
            do {
                try UndoFiles.truncate(job.fd, to: job.sizeBefore, path: job.path)
            } catch _ {
                job.cutFailed = true
            }
        }
    }
}
