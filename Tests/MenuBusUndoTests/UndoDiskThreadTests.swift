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
        let before = try taskCount()
        let thread = try XCTUnwrap(UndoDiskThread())
        XCTAssertEqual(try taskCount(), before + 1)
        let ran = Mutex(0)
        for _ in 0..<500 { thread.async { ran.withLock { $0 += 1 } } }
        thread.stop()
        XCTAssertEqual(ran.withLock { $0 }, 500)
        XCTAssertEqual(try taskCount(), before, "the thread was joined")
    }

    func testAnExecutorWritesEveryStepAndTakesItsThreadsWhenLetGo() throws {
        let directory = try TemporaryDirectory()
        let before = try taskCount()
        var outcomes: [Result<UndoStore.Outcome, UndoError>] = []
        do {
            let store = UndoStore(stateDirectory: directory.path)
            _ = store.loadAll()
            let executor = try XCTUnwrap(ThreadedUndoDiskExecutor())
            XCTAssertEqual(try taskCount(), before + 2, "an append thread and one for the rest")
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
        XCTAssertEqual(try taskCount(), before, "both threads were joined")
        let again = UndoStore(stateDirectory: directory.path)
        _ = again.loadAll()
        XCTAssertEqual(again.state(appId: "org.example.Editor", documentId: "doc")?.undoCount, 200)
    }

    private static func threadID() -> pthread_t { pthread_self() }

    /// Threads of this process.
    private func taskCount() throws -> Int {
        guard let directory = opendir("/proc/self/task") else { throw UndoFileError(call: "opendir", path: "/proc/self/task", errno: errno) }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }
}
