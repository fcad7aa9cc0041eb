#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Runs the undo journal's disk work (fdatasync, fsync, compaction
/// snapshots) on a background queue, one task at a time, and runs each
/// task's completion back on the loop (through a pipe the loop watches), so
/// no call waits on the disk.
final class UndoSyncer: @unchecked Sendable {
    private let loop: MessageLoop
    private let queue = DispatchQueue(label: "org.menubus.undo-disk")
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = Mutex<[Int]>([])
    private var completions: [Int: () -> Void] = [:]
    private var nextTask = 0
    /// A group-commit sync is in flight.
    var isSyncing = false

    init?(loop: MessageLoop) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        self.loop = loop
        wakeRead = fds[0]
        wakeWrite = fds[1]
        loop.watch(fd: wakeRead) { [weak self] in self?.deliver() }
    }

    deinit {
        loop.unwatch(fd: wakeRead)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Runs `work` off the loop; `done` runs on the loop afterwards.
    func run(_ work: @escaping @Sendable () -> Void, done: @escaping () -> Void) {
        nextTask += 1
        let id = nextTask
        completions[id] = done
        queue.async { [self] in
            work()
            self.finished.withLock { $0.append(id) }
            var byte: UInt8 = 1
            _ = write(self.wakeWrite, &byte, 1)
        }
    }

    /// Waits for every task in flight and runs their completions (at shutdown).
    func wait() {
        queue.sync {}
        deliver()
    }

    private func deliver() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
        let done = finished.withLock { ids -> [Int] in
            defer { ids = [] }
            return ids
        }
        for id in done { completions.removeValue(forKey: id)?() }
    }
}
