import Dispatch
import Synchronization

/// menubusd's executor: the store's disk work off the loop, each piece's
/// `then` back on the loop, which watches `wakeDescriptor` and calls
/// `deliverCompletions()`. Appends run on one queue and the rest
/// (snapshots, tails, renames, syncs) on another, so an append never waits
/// behind a compaction's snapshot; each queue runs one piece at a time, in order.
package final class ThreadedUndoDiskExecutor: UndoDiskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "org.menubus.undo-disk")
    private let appendQueue = DispatchQueue(label: "org.menubus.undo-append")
    /// Readable once some work is done: the loop watches it.
    package let wakeDescriptor: Int32
    private let wakeWrite: Int32
    private let finished = Mutex<[Int]>([])
    private var completions: [Int: () -> Void] = [:]
    private var nextTask = 0
    private let afterCompletions: () -> Void

    /// `afterCompletions` runs on the loop after each batch of `then`s
    /// (the service logs the store's problems and schedules its sync);
    /// nil when no pipe can be made.
    package init?(afterCompletions: @escaping () -> Void = {}) {
        guard let pipe = UndoFiles.makeWakePipe() else { return nil }
        wakeDescriptor = pipe.read
        wakeWrite = pipe.write
        self.afterCompletions = afterCompletions
    }

    deinit {
        UndoFiles.close(wakeDescriptor)
        UndoFiles.close(wakeWrite)
    }

    package var offloaded: UndoDiskWork.Kinds { .all }

    package func execute(_ work: UndoDiskWork, then: @escaping () -> Void) {
        nextTask += 1
        let id = nextTask
        completions[id] = then
        (work.kind == .append ? appendQueue : queue).async { [self] in
            // The loop, which answers every app, gets the processor before checksums and copies of journals.
            UndoFiles.lowerThreadPriority()
            work.run()
            finished.withLock { $0.append(id) }
            UndoFiles.wake(wakeWrite)
        }
    }

    /// At shutdown, and for the few callers that cannot wait their turn.
    package func waitForAll() {
        appendQueue.sync {}
        queue.sync {}
        deliverCompletions()
    }

    /// On the loop: runs the `then` of each piece done so far.
    package func deliverCompletions() {
        UndoFiles.drain(wakeDescriptor)
        let done = finished.withLock { ids -> [Int] in
            defer { ids = [] }
            return ids
        }
        guard !done.isEmpty else { return }
        for id in done { completions.removeValue(forKey: id)?() }
        afterCompletions()
    }
}
