/// The counters of the manager's `Stats` property (API.md).
struct Stats: Equatable {
    var apps: UInt32 = 0
    var contexts: UInt32 = 0
    var documents: UInt32 = 0
    var presentations: UInt32 = 0
    var providers: UInt32 = 0

    /// The `a{sv}` form, with the process's real resident size.
    func dbusValue(residentBytes: UInt64) -> DBusValue {
        .array("{sv}", [
            .dictEntry(.string("apps"), .variant(.uint32(apps))),
            .dictEntry(.string("contexts"), .variant(.uint32(contexts))),
            .dictEntry(.string("documents"), .variant(.uint32(documents))),
            .dictEntry(.string("presentations"), .variant(.uint32(presentations))),
            .dictEntry(.string("providers"), .variant(.uint32(providers))),
            .dictEntry(.string("rss-bytes"), .variant(.uint64(residentBytes))),
        ])
    }
}
