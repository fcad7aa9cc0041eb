/// Problems for the service's log and a directory fsync owed: noted by each
/// of the store's owners, taken by the store when it reports or syncs.
final class UndoStoreNotes {
    var problems: [UndoStorageProblem] = []
    /// A journal was created, replaced or removed since the directory's last fsync.
    var directoryNeedsSync = false
}
