import Synchronization
import MenuBusSupport

/// menubusd's executor: the store's disk work off the loop, each piece's
/// `then` back on the loop, which watches `wakeDescriptor` and calls
/// `deliverCompletions()`. Appends run on one thread and the rest
/// (snapshots, tails, renames, syncs) on another, so an append never waits
/// behind a compaction's snapshot; each thread runs one piece at a time, in order.
package final class ThreadedUndoDiskExecutor: UndoDiskExecutor {
    private let thread: UndoDiskThread
    private let appendThread: UndoDiskThread
    /// Readable once some work is done: the loop watches it.
    package let wakeDescriptor: Int32
    private let finished: FinishedWork
    private var completions: [Int: () -> Void] = [:]
    private var nextTask = 0
    private let afterCompletions: () -> Void

    /// `afterCompletions` runs on the loop after each batch of `then`s
    /// (the service logs the store's problems and schedules its sync);
    /// nil when no pipe or thread can be made.
    package init?(afterCompletions: @escaping () -> Void = {}) {
        guard let pipe = UndoFiles.makeWakePipe() else { return nil }
        let thread = UndoDiskThread(), appendThread = UndoDiskThread()
        guard let thread, let appendThread else {
            thread?.stop()
            appendThread?.stop()
            UndoFiles.close(pipe.read)
            UndoFiles.close(pipe.write)
            return nil
        }
        self.thread = thread
        self.appendThread = appendThread
        wakeDescriptor = pipe.read
        finished = FinishedWork(wakeWrite: pipe.write)
        self.afterCompletions = afterCompletions
    }

    deinit {
        // What is queued still runs; nothing on the threads refers to the
        // executor, so this runs on the loop's thread, never on theirs.
        appendThread.stop()
        thread.stop()
        UndoFiles.close(wakeDescriptor)
        UndoFiles.close(finished.wakeWrite)
    }

    package var offloaded: UndoDiskWork.Kinds { .all }

    package func execute(_ work: UndoDiskWork, then: @escaping () -> Void) {
        nextTask += 1
        let id = nextTask
        completions[id] = then
        let finished = finished
        (work.kind == .append ? appendThread : thread).async {
            work.run()
            finished.add(id)
        }
    }

    /// At shutdown, and for the few callers that cannot wait their turn.
    package func waitForAll() {
        appendThread.waitUntilIdle()
        thread.waitUntilIdle()
        deliverCompletions()
    }

    /// On the loop: runs the `then` of each piece done so far.
    package func deliverCompletions() {
        UndoFiles.drain(wakeDescriptor)
        let done = finished.take()
        guard !done.isEmpty else { return }
        for id in done { completions.removeValue(forKey: id)?() }
        // A burst of steps grew the table; give its storage back after.
        completions.releaseSpareCapacity()
        afterCompletions()
    }
}

/// The pieces done, written by the disk threads and taken by the loop.
private final class FinishedWork: Sendable {
    let wakeWrite: Int32
    private let ids = Mutex<[Int]>([])

    init(wakeWrite: Int32) { self.wakeWrite = wakeWrite }

    func add(_ id: Int) {
        ids.withLock { $0.append(id) }
        UndoFiles.wake(wakeWrite)
    }

    func take() -> [Int] {
        ids.withLock { ids in
            defer { ids = [] }
            return ids
        }
    }
}
