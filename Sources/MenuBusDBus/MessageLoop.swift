#if canImport(Glibc)
import Glibc
#endif

/// The one serial owner: a poll loop over the connections' sockets, extra
/// file descriptors and a timer heap. Everything runs on the thread that
/// calls `run`; nothing here is thread-safe, and nothing needs to be.
package final class MessageLoop {
    /// Identifies a timer for `cancel`.
    package struct TimerID: Hashable { let value: UInt64 }

    private struct Deadline: Comparable {
        let at: UInt64
        let id: UInt64
        static func < (a: Deadline, b: Deadline) -> Bool { (a.at, a.id) < (b.at, b.id) }
    }

    private var heap: [Deadline] = []
    private var timers: [UInt64: () -> Void] = [:]
    private var nextTimerID: UInt64 = 1
    private var watches: [Int32: () -> Void] = [:]
    /// Weak: a connection's owner decides its lifetime; one dropped closes itself.
    private struct Attached {
        weak var connection: Connection?
    }

    private var attached: [ObjectIdentifier: Attached] = [:]

    private var connections: [Connection] {
        attached.values.compactMap(\.connection)
    }
    private var stopped = false
    /// Reused between rounds so a quiet round allocates nothing.
    private var pollSet: [pollfd] = []
    private var pollOwners: [Connection?] = []

    /// Work posted from other threads (`post`).
    package let inbox = LoopInbox()

    package init() {
        let inbox = self.inbox
        watches[inbox.fd] = { inbox.drain() }
    }

    /// When the earliest live timer is due (monotonic nanoseconds).
    var nextDeadline: UInt64? {
        heap.lazy.filter { self.timers[$0.id] != nil }.map(\.at).min()
    }

    /// Monotonic nanoseconds.
    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    // MARK: Timers

    /// `seconds` as nanoseconds, clamped to [0, one year]: NaN, negative and
    /// infinite values from callers never trap.
    package static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 31_536_000) * 1_000_000_000)
    }

    /// Runs `fire` once, `seconds` from now, on this loop.
    @discardableResult
    package func addTimer(after seconds: Double, _ fire: @escaping () -> Void) -> TimerID {
        let id = nextTimerID
        nextTimerID += 1
        let delay = MessageLoop.nanoseconds(seconds)
        timers[id] = fire
        push(Deadline(at: MessageLoop.now() &+ delay, id: id))
        return TimerID(value: id)
    }

    func cancel(_ timer: TimerID) {
        timers[timer.value] = nil
    }

    var pendingTimerCount: Int { timers.count }

    private func push(_ deadline: Deadline) {
        heap.append(deadline)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func popMin() -> Deadline? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left] < heap[smallest] { smallest = left }
                if right < heap.count, heap[right] < heap[smallest] { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }

    /// Fires due timers; returns milliseconds until the next one (-1: none,
    /// 0 when one fired, so the caller looks at its condition before waiting).
    private func fireDueTimers() -> Int32 {
        var firedAny = false
        while let first = heap.first {
            if timers[first.id] == nil {
                _ = popMin()
                continue
            }
            let now = MessageLoop.now()
            if first.at > now {
                let ms = (first.at - now + 999_999) / 1_000_000
                return firedAny ? 0 : Int32(min(ms, 60_000))
            }
            _ = popMin()
            if let fire = timers.removeValue(forKey: first.id) {
                fire()
                firedAny = true
            }
        }
        return firedAny ? 0 : -1
    }

    // MARK: Sources

    /// Calls `readable` whenever `fd` can be read.
    package func watch(fd: Int32, _ readable: @escaping () -> Void) {
        watches[fd] = readable
    }

    package func unwatch(fd: Int32) {
        watches[fd] = nil
    }

    func attach(_ connection: Connection) {
        attached[ObjectIdentifier(connection)] = Attached(connection: connection)
    }

    func detach(_ connection: Connection) {
        attached[ObjectIdentifier(connection)] = nil
    }

    // MARK: Running

    /// Runs until `stop()`.
    package func run() {
        stopped = false
        while !stopped {
            iterate(maxWaitMilliseconds: -1)
        }
    }

    /// Runs until `done()` is true or `seconds` pass; returns `done()`.
    @discardableResult
    package func run(until done: () -> Bool, timeout seconds: Double) -> Bool {
        let deadline = MessageLoop.now() &+ MessageLoop.nanoseconds(seconds)
        stopped = false
        while !done() && !stopped {
            let now = MessageLoop.now()
            if now >= deadline { break }
            iterate(maxWaitMilliseconds: Int32(min((deadline - now) / 1_000_000 + 1, 60_000)))
        }
        return done()
    }

    package func stop() {
        stopped = true
    }

    /// One round: fire due timers, wait for input (not at all when libdbus
    /// already holds messages), read and write, then dispatch.
    private func iterate(maxWaitMilliseconds: Int32) {
        var timeout = fireDueTimers()
        if stopped { return }
        let connections = self.connections
        if connections.contains(where: \.hasQueuedInput) {
            timeout = 0
        }
        if maxWaitMilliseconds >= 0, timeout < 0 || timeout > maxWaitMilliseconds {
            timeout = maxWaitMilliseconds
        }
        pollSet.removeAll(keepingCapacity: true)
        pollOwners.removeAll(keepingCapacity: true)
        for connection in connections {
            guard let fd = connection.socket else { continue }
            let events = Int16(POLLIN) | (connection.hasPendingOutput ? Int16(POLLOUT) : 0)
            pollSet.append(pollfd(fd: fd, events: events, revents: 0))
            pollOwners.append(connection)
        }
        for fd in watches.keys {
            pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            pollOwners.append(nil)
        }
        let ready = poll(&pollSet, nfds_t(pollSet.count), timeout)
        if ready > 0 {
            for index in pollSet.indices where pollSet[index].revents != 0 {
                if let connection = pollOwners[index] {
                    connection.readWrite()
                } else if let callback = watches[pollSet[index].fd] {
                    callback()
                }
            }
        }
        pollOwners.removeAll(keepingCapacity: true)
        for connection in connections {
            connection.dispatchAll()
        }
    }
}
