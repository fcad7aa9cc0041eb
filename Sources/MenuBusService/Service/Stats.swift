#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// The counters of the manager's `Stats` property (docs/API.md).
package struct Stats: Equatable {
    /// When the server started (monotonic nanoseconds).
    var startedAt: UInt64 = MessageLoop.now()
    package var apps: UInt32 = 0
    package var contexts: UInt32 = 0
    package var documents: UInt32 = 0
    package var presentations: UInt32 = 0
    package var providers: UInt32 = 0
    /// What the memory budgets count for every connection (`heldBytesTotal`).
    package var heldBytes: UInt64 = 0
    /// Undo history in memory and in journals.
    package var undoMemoryBytes: UInt64 = 0
    package var undoDiskBytes: UInt64 = 0
    /// What became of an undo history found in another state directory at
    /// start (moved, merged); nil when there was none.
    package var undoHistory: String?

    /// The `a{sv}` form, with the process's real resident size, and who
    /// answers: `version` (the software version), `pid`, `uptime-seconds`.
    package func dbusValue(residentBytes: UInt64) -> DBusValue {
        var entries: [DBusValue] = [
            .dictEntry(.string("version"), .variant(.string(MenuBusNames.softwareVersion))),
            .dictEntry(.string("pid"), .variant(.uint32(UInt32(truncatingIfNeeded: getpid())))),
            .dictEntry(.string("uptime-seconds"), .variant(.uint64((MessageLoop.now() &- startedAt) / 1_000_000_000))),
            .dictEntry(.string("apps"), .variant(.uint32(apps))),
            .dictEntry(.string("contexts"), .variant(.uint32(contexts))),
            .dictEntry(.string("documents"), .variant(.uint32(documents))),
            .dictEntry(.string("presentations"), .variant(.uint32(presentations))),
            .dictEntry(.string("providers"), .variant(.uint32(providers))),
            .dictEntry(.string("held-bytes"), .variant(.uint64(heldBytes))),
            .dictEntry(.string("undo-memory-bytes"), .variant(.uint64(undoMemoryBytes))),
            .dictEntry(.string("undo-disk-bytes"), .variant(.uint64(undoDiskBytes))),
            .dictEntry(.string("rss-bytes"), .variant(.uint64(residentBytes))),
        ]
        if let undoHistory { entries.append(.dictEntry(.string("undo-history"), .variant(.string(undoHistory)))) }
        return .array("{sv}", entries)
    }
}
