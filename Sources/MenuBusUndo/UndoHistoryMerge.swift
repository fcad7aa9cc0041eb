/// Brings the undo history another way of starting menubusd kept into the
/// state directory in use, once, so there is one history whichever started
/// first (docs/DESIGN.md, "Journal"): menubusd started by hand keeps it in
/// `~/.local/state/menubus`, the systemd 252 unit in `~/.config/menubus`.
///
/// Each journal of the other `undo` folder is moved in (a rename, or a copy
/// across file systems). A document both folders hold keeps the newer
/// journal (the later modification time; on a tie, the one in use) and the
/// other goes. What cannot be moved stays where it was and is reported;
/// an original in a read-only folder (the unit's sandbox makes the home
/// read-only) stays beside its copy and is not reported again. The other
/// folder goes once it is empty. Run before the store lists its
/// folder (`UndoStore.indexJournals`), while nothing writes either folder.
package enum UndoHistoryMerge {
    /// What one merge did.
    package struct Report: Equatable, Sendable {
        /// Journals moved in: documents only the other history held.
        package var moved = 0
        /// Documents both histories held; the newer journal of each was kept.
        package var inBoth = 0
        /// Of those, the ones whose newer journal was the other history's.
        package var replaced = 0
        /// Journals the history in use held before: with `moved` or
        /// `inBoth`, two histories with content were merged.
        package var existing = 0
        /// Of those, the ones whose older journal (the other history's) went.
        package var dropped = 0
        /// Journals in use here whose original stays in the other folder,
        /// which is read-only (the unit's sandbox makes the home so).
        package var leftReadOnly = 0
        /// Files that could not be moved or removed; they stay where they were.
        package var failures: [UndoFileError] = []
        /// A running menubusd holds the other state directory's lock
        /// (another session of this user): nothing was touched.
        package var inUse = false

        /// Nothing changed: nothing to bring in, or only read-only originals
        /// of journals already here.
        package var isEmpty: Bool { moved == 0 && replaced == 0 && dropped == 0 && failures.isEmpty && !inUse }
        /// Both histories had journals.
        package var mergedTwo: Bool { existing > 0 && (moved > 0 || inBoth > 0) }
    }

    /// The file a running menubusd keeps locked in its state directory
    /// (`lockStateDirectory`), so no other moves its history away.
    package static let lockName = "menubusd.lock"

    /// Locks `stateDirectory` (made if missing) for as long as the returned
    /// descriptor is open; `.busy` when another menubusd holds it.
    package static func lockStateDirectory(_ stateDirectory: String) -> UndoFiles.Lock {
        do {
            try UndoFiles.makeDirectory(stateDirectory)
        } catch {
            return .unavailable
        }
        return UndoFiles.lock(stateDirectory + "/" + lockName, create: true)
    }

    /// Merges `<other>/undo` into `<stateDirectory>/undo`; nil when the other
    /// holds no folder (or is the same folder under another name). A history
    /// whose menubusd runs (its lock is held) is left alone.
    package static func merge(from other: String, into stateDirectory: String) -> Report? {
        let source = folder(of: other), target = folder(of: stateDirectory)
        guard let there = UndoFiles.identity(source) else { return nil }
        if let here = UndoFiles.identity(target), here.device == there.device, here.inode == there.inode { return nil }
        var report = Report()
        switch UndoFiles.lock(other + "/" + lockName, create: false) {
        case .busy:
            report.inUse = true
            return report
        case .held(let fd):
            defer { UndoFiles.close(fd) }
            return merge(source, into: target, report: report)
        case .unavailable:
            return merge(source, into: target, report: report)
        }
    }

    private static func merge(_ source: String, into target: String, report: Report) -> Report? {
        var report = report
        let names: [String]
        do {
            names = try UndoFiles.list(source).sorted()
        } catch {
            report.failures.append(error)
            return report
        }
        let movable = names.filter { $0.hasSuffix(UndoFileName.suffix) || $0.hasSuffix(UndoFileName.damagedSuffix) }
        guard !movable.isEmpty else {
            for name in names where name.hasSuffix(UndoFileName.temporarySuffix) { try? UndoFiles.remove(source + "/" + name) }
            _ = UndoFiles.removeDirectory(source)
            return nil
        }
        do {
            try UndoFiles.makeDirectory(target)
            report.existing = try UndoFiles.list(target).filter { $0.hasSuffix(UndoFileName.suffix) }.count
        } catch {
            report.failures.append(error)
            return report
        }
        for name in names {
            let from = source + "/" + name, to = target + "/" + name
            do {
                if name.hasSuffix(UndoFileName.temporarySuffix) {
                    // A compaction's snapshot a crash left: the journal beside it is whole.
                    try UndoFiles.remove(from)
                    continue
                }
                guard movable.contains(name) else { continue }
                let isJournal = name.hasSuffix(UndoFileName.suffix)
                guard let here = UndoFiles.identity(to) else {
                    try move(from, to: to, report: &report)
                    if isJournal { report.moved += 1 }
                    continue
                }
                if isJournal { report.inBoth += 1 }
                if let theirs = UndoFiles.identity(from), theirs.modified > here.modified {
                    try move(from, to: to, report: &report)
                    if isJournal { report.replaced += 1 }
                } else if try remove(from, report: &report), isJournal {
                    report.dropped += 1
                }
            } catch {
                report.failures.append(error)
            }
        }
        try? UndoFiles.syncDirectory(target)
        try? UndoFiles.syncDirectory(source)
        _ = UndoFiles.removeDirectory(source)
        return report
    }

    /// Moves a file in; a copy whose original cannot go from a read-only
    /// folder counts as moved, and as left there.
    private static func move(_ from: String, to: String, report: inout Report) throws(UndoFileError) {
        do {
            try UndoFiles.move(from, to: to)
        } catch where error.call == "unlink" && error.isReadOnlyFileSystem {
            report.leftReadOnly += 1
        }
    }

    /// Removes the other folder's copy; false when it stays, read-only.
    private static func remove(_ path: String, report: inout Report) throws(UndoFileError) -> Bool {
        do {
            try UndoFiles.remove(path)
            return true
        } catch where error.isReadOnlyFileSystem {
            report.leftReadOnly += 1
            return false
        }
    }

    private static func folder(of stateDirectory: String) -> String {
        let trimmed = stateDirectory.count > 1 && stateDirectory.hasSuffix("/")
            ? String(stateDirectory.dropLast()) : stateDirectory
        return trimmed + "/" + UndoStore.directoryName
    }
}
