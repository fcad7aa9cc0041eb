#if canImport(Glibc)
import Glibc
#endif

/// Work handed to a loop from any thread: queued under a lock, and a pipe
/// the loop polls wakes it. The only thread-safe part of a loop.
package final class LoopInbox: @unchecked Sendable {
    /// The read end, which the loop polls.
    package let fd: Int32
    private let writeEnd: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var work: [() -> Void] = []

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        fd = ends[0]
        writeEnd = ends[1]
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        if fd >= 0 { close(fd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    package func post(_ item: @escaping () -> Void) {
        pthread_mutex_lock(mutex)
        work.append(item)
        pthread_mutex_unlock(mutex)
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Runs what was posted; on the loop's thread.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fd, &buffer, buffer.count) > 0 {}
        pthread_mutex_lock(mutex)
        let items = work
        work.removeAll()
        pthread_mutex_unlock(mutex)
        for item in items { item() }
    }
}

extension MessageLoop {
    /// Runs `work` on the loop's thread at its next round; callable from any thread.
    package func post(_ work: @escaping () -> Void) {
        inbox.post(work)
    }

    /// One round that does not wait: due timers, input already there, dispatch.
    package func step() {
        run(until: { false }, timeout: 0.0005)
    }

    /// Seconds until the next timer is due (nil: none).
    package var secondsToNextTimer: Double? {
        guard let at = nextDeadline else { return nil }
        let now = MessageLoop.now()
        return at > now ? Double(at - now) / 1e9 : 0
    }
}
