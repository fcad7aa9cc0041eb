extension Dictionary {
    /// Gives back the storage a burst left behind: once a quarter or less
    /// of the table is used, the entries move to a table their size.
    ///
    /// A Swift dictionary keeps its largest capacity after removals, so a
    /// table keyed by peers would keep, for the daemon's lifetime, room for
    /// the most peers it ever saw at once; and that storage, taken while
    /// the load had grown the heap, keeps the heap's pages around it
    /// resident after the load has gone. Shrinking at a quarter, not at a
    /// half, means a table that moves about one size never copies on every
    /// removal.
    package mutating func releaseSpareCapacity() {
        guard capacity > 16, count <= capacity / 4 else { return }
        if isEmpty {
            self = [:]
            return
        }
        var smaller = Self(minimumCapacity: count)
        for (key, value) in self { smaller[key] = value }
        self = smaller
    }
}
