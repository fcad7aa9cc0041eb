#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Runs the undo journal's fdatasync and fsync on a background queue and
/// hands the result back on the loop (through a pipe the loop watches), so
/// no call waits on the disk.
final class UndoSyncer: @unchecked Sendable {
    private let loop: MessageLoop
    private let queue = DispatchQueue(label: "org.menubus.undo-sync")
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = Mutex<UndoStore.SyncResult?>(nil)
    private var completion: ((UndoStore.SyncResult) -> Void)?

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

    var isBusy: Bool { completion != nil }

    /// Syncs `batch` off the loop; `done` runs on the loop afterwards.
    func run(_ batch: UndoStore.SyncBatch, done: @escaping (UndoStore.SyncResult) -> Void) {
        completion = done
        let wake = wakeWrite
        queue.async { [self] in
            let result = UndoStore.runSync(batch)
            self.finished.withLock { $0 = result }
            var byte: UInt8 = 1
            _ = write(wake, &byte, 1)
        }
    }

    /// Waits for a sync in flight (at shutdown).
    func wait() {
        queue.sync {}
        deliver()
    }

    private func deliver() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
        guard let result = finished.withLock({ value -> UndoStore.SyncResult? in
            defer { value = nil }
            return value
        }), let done = completion else { return }
        completion = nil
        done(result)
    }
}
