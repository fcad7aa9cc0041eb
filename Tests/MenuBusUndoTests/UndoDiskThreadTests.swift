#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// The store's own disk threads (menubusd's executor): work runs off the
/// calling thread, in the order given; waiting and stopping wait for what
/// was queued; and an executor let go takes its threads with it.
final class UndoDiskThreadTests: XCTestCase {
    func testWorkRunsOffTheCallersThreadInTheOrderGiven() throws {
        let thread = try XCTUnwrap(UndoDiskThread())
        defer { thread.stop() }
        let ran = Mutex<[Int]>([])
        let caller = Self.threadID()
        let threads = Mutex<Set<pthread_t>>([])
        for index in 0..<2_000 {
            thread.async {
                threads.withLock { _ = $0.insert(Self.threadID()) }
                ran.withLock { $0.append(index) }
            }
        }
        thread.waitUntilIdle()
        XCTAssertEqual(ran.withLock { $0 }, Array(0..<2_000))
        XCTAssertEqual(threads.withLock { $0.count }, 1, "one thread runs every piece")
        XCTAssertFalse(threads.withLock { $0.contains(caller) })
    }

    func testStoppingRunsWhatWasQueuedAndEndsTheThread() throws {
        var thread = UndoDiskThread()
        weak let stopped = thread
        let ran = Mutex(0)
        let worker = Mutex<String?>(nil)
        thread?.async { worker.withLock { $0 = Self.currentTask() } }
        for _ in 0..<500 { thread?.async { ran.withLock { $0 += 1 } } }
        thread?.stop()
        XCTAssertEqual(ran.withLock { $0 }, 500)
        let task = try XCTUnwrap(worker.withLock { $0 })
        XCTAssertTrue(Self.eventually { access(task, F_OK) != 0 }, "\(task) was joined")
        thread = nil
        XCTAssertNil(stopped, "nothing keeps a stopped thread's object")
    }

    func testAnExecutorWritesEveryStepAndTakesItsThreadsWhenLetGo() throws {
        let directory = try TemporaryDirectory()
        let before = try Self.tasks()
        var outcomes: [Result<UndoStore.Outcome, UndoError>] = []
        var started: Set<String> = []
        do {
            let store = UndoStore(stateDirectory: directory.path)
            _ = store.loadAll()
            let executor = try XCTUnwrap(ThreadedUndoDiskExecutor())
            started = try Self.tasks().subtracting(before)
            XCTAssertEqual(started.count, 2, "an append thread and one for the rest")
            store.executor = executor
            for index in 0..<200 {
                store.submit(.register(actionName: "Step \(index)", undo: [UInt8](repeating: 1, count: 4096), redo: [2], mergeKey: ""),
                             appId: "org.example.Editor", documentId: "doc", now: Time.start) { outcomes.append($0) }
            }
            // Each `then` hands the document's next step over: wait until the last is answered.
            var rounds = 0
            while outcomes.count < 200, rounds < 1_000 {
                executor.waitForAll()
                rounds += 1
            }
            var synced = false
            store.startSync { synced = true }
            executor.waitForAll()
            XCTAssertTrue(synced)
        }
        XCTAssertEqual(outcomes.count, 200)
        XCTAssertEqual(try outcomes.last?.get().state.undoCount, 200)
        XCTAssertTrue(Self.eventually { started.allSatisfy { access("/proc/self/task/" + $0, F_OK) != 0 } },
                      "both threads were joined")
        let again = UndoStore(stateDirectory: directory.path)
        _ = again.loadAll()
        XCTAssertEqual(again.state(appId: "org.example.Editor", documentId: "doc")?.undoCount, 200)
    }

    /// The calling thread's entry, "/proc/PID/task/TID".
    private static func currentTask() -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return "/proc/" + String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True once `condition` holds; a joined thread leaves /proc a moment
    /// after pthread_join returns. Gives up after five seconds.
    private static func eventually(_ condition: () -> Bool) -> Bool {
        var waited = 0
        while !condition() {
            guard waited < 5_000 else { return false }
            usleep(1_000)
            waited += 1
        }
        return true
    }

    private static func threadID() -> pthread_t { pthread_self() }

    /// The ids of this process's threads.
    private static func tasks() throws -> Set<String> {
        guard let directory = opendir("/proc/self/task") else { throw UndoFileError(call: "opendir", path: "/proc/self/task", errno: errno) }
        defer { closedir(directory) }
        var names: Set<String> = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.insert(name) }
        }
        return names
    }
}
