/// Where the undo store's disk work runs. The store hands over the kinds of
/// work `offloaded` names and does the others itself, on its own thread;
/// `then` must run on the store's thread once the work ran.
package protocol UndoDiskExecutor: AnyObject {
    /// The kinds of work the store hands over.
    var offloaded: UndoDiskWork.Kinds { get }
    /// Runs `work` (its system calls, on any thread), then `then` on the store's thread.
    func execute(_ work: UndoDiskWork, then: @escaping () -> Void)
    /// Blocks until the work handed over has run and each `then` too.
    func waitForAll()
}

/// Tools and tests: the store writes, compacts and syncs on its own thread.
package final class InlineUndoDiskExecutor: UndoDiskExecutor {
    package init() {}

    package var offloaded: UndoDiskWork.Kinds { [] }

    package func execute(_ work: UndoDiskWork, then: @escaping () -> Void) {
        work.run()
        then()
    }

    package func waitForAll() {}
}

/// One piece of the store's disk work. `run()` makes the system calls and
/// touches nothing the store's thread reads until `then`, so it may run on
/// any thread.
package enum UndoDiskWork: @unchecked Sendable {
    /// An operation's records, written with one write(2).
    case append(AppendJob)
    /// A compaction's snapshot, written to its temporary file and fsynced.
    case snapshot(CompactionJob)
    /// What was appended while the snapshot was written, copied after it.
    case tailCopy(CompactionJob)
    /// The last tail and the rename over the journal, the document's appends waiting.
    case finish(CompactionJob)
    /// The group commit: fdatasync of the journals written, fsync of the directory.
    case sync(UndoSyncRun)

    package struct Kinds: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        package static let append = Kinds(rawValue: 1 << 0)
        package static let snapshot = Kinds(rawValue: 1 << 1)
        package static let tailCopy = Kinds(rawValue: 1 << 2)
        package static let finish = Kinds(rawValue: 1 << 3)
        package static let sync = Kinds(rawValue: 1 << 4)
        package static let all: Kinds = [.append, .snapshot, .tailCopy, .finish, .sync]
    }

    package var kind: Kinds {
        switch self {
        case .append: .append
        case .snapshot: .snapshot
        case .tailCopy: .tailCopy
        case .finish: .finish
        case .sync: .sync
        }
    }

    package func run() {
        switch self {
        case .append(let job): UndoJournal.runAppend(job)
        case .snapshot(let job): UndoJournal.runCompaction(job)
        case .tailCopy(let job): UndoJournal.runTailCopy(job)
        case .finish(let job): UndoJournal.runFinish(job)
        case .sync(let run): run.result = UndoStore.runSync(run.batch)
        }
    }
}

/// A group-commit sync handed to an executor: the batch in, the result out
/// (written off the loop before `then`, read on the loop after it).
package final class UndoSyncRun: @unchecked Sendable {
    let batch: UndoStore.SyncBatch
    var result = UndoStore.SyncResult()

    init(_ batch: UndoStore.SyncBatch) {
        self.batch = batch
    }
}
