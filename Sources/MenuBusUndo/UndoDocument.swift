import MenuBusModel

/// One document the store holds: its key, its stack, when it was last
/// changed, and its journal.
package struct UndoDocument {
    let key: UndoDocumentKey
    package var stack: UndoStack
    /// Seconds since the epoch of the last operation, as the service passed
    /// it (the model reads no clock). Retention compares it with `now`.
    var lastTouched: Int64
    /// The last `touched` time written to the journal; a new one is
    /// written when `lastTouched` moves an hour or more from it, so after a
    /// restart `lastTouched` is at most that much older than it was.
    var journaledTouch: Int64
    package let journal: UndoJournal
}
