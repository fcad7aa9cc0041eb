import Dispatch
import XCTest
@testable import MenuBusUndo

/// The store's disk work as a test drives it: the kinds it `holds` wait
/// until the test runs them (on a dispatch queue, as menubusd does) and
/// hands them back; the other kinds offloaded run at once.
final class ManualDiskExecutor: UndoDiskExecutor {
    let offloaded: UndoDiskWork.Kinds
    private let held: UndoDiskWork.Kinds
    private var waiting: [(work: UndoDiskWork, then: () -> Void)] = []
    /// Every piece handed over, in order.
    private var handed: [UndoDiskWork] = []
    let queue = DispatchQueue(label: "test-undo-disk")
    /// Runs when the store blocks until the disk work is done.
    var onWait: () -> Void = {}

    init(offloading offloaded: UndoDiskWork.Kinds, holding held: UndoDiskWork.Kinds? = nil) {
        self.offloaded = offloaded
        self.held = held ?? offloaded
    }

    func execute(_ work: UndoDiskWork, then: @escaping () -> Void) {
        handed.append(work)
        guard held.contains(work.kind) else {
            queue.sync { work.run() }
            return then()
        }
        waiting.append((work, then))
    }

    func waitForAll() {
        onWait()
        while let next = waiting.first {
            waiting.removeFirst()
            queue.sync { next.work.run() }
            next.then()
        }
    }

    /// Appends waiting to be written.
    var appends: [AppendJob] {
        waiting.compactMap { if case .append(let job) = $0.work { job } else { nil } }
    }

    /// Compactions whose snapshot was handed over.
    var compactions: [CompactionJob] {
        handed.compactMap { if case .snapshot(let job) = $0 { job } else { nil } }
    }

    /// Tail copies handed over.
    var tailCopies: [CompactionJob] {
        handed.compactMap { if case .tailCopy(let job) = $0 { job } else { nil } }
    }

    /// Finishes (last tail, rename) handed over.
    var finishes: [CompactionJob] {
        handed.compactMap { if case .finish(let job) = $0 { job } else { nil } }
    }

    /// Writes the oldest append waiting and hands it back to the store.
    func writeNext() throws {
        let index = try XCTUnwrap(waiting.firstIndex { $0.work.kind == .append }, "an append is in flight")
        let next = waiting.remove(at: index)
        queue.sync { next.work.run() }
        next.then()
    }

    /// Hands the oldest waiting piece of `kind` back to the store, its
    /// system calls made by the test (or not at all).
    func handBack(_ kind: UndoDiskWork.Kinds) throws {
        let index = try XCTUnwrap(waiting.firstIndex { $0.work.kind == kind }, "a piece of that kind waits")
        waiting.remove(at: index).then()
    }
}
