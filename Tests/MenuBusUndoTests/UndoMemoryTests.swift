#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// What a step costs in memory beyond its payloads. A measurement with a
/// bound (DESIGN budget: 200 bytes a step), not a timing: the number is
/// printed, and bench/lib/undo-bench reports it for release builds.
final class UndoMemoryTests: XCTestCase {
    /// Heap bytes in use from glibc's malloc_info totals (Swift's Glibc
    /// module has no malloc.h, so no mallinfo2); nil when unavailable.
    private func heapInUse() -> Int? {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_info") else { return nil }
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
        fclose(stream)
        guard let buffer else { return nil }
        defer { free(buffer) }
        guard let totals = String(cString: buffer).split(separator: "</heap>").last else { return nil }
        func value(_ tag: String) -> Int {
            guard let range = totals.firstRange(of: tag),
                  let size = totals[range.upperBound...].firstRange(of: "size=\"") else { return 0 }
            return Int(totals[size.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return value("<system type=\"current\"") - value("<total type=\"fast\"") - value("<total type=\"rest\"")
            + value("<total type=\"mmap\"")
    }

    private func overheadPerStep(steps: Int, _ build: () throws -> UndoStack) throws -> Double {
        let before = try XCTUnwrap(heapInUse())
        let stack = try build()
        let after = try XCTUnwrap(heapInUse())
        let payloads = stack.liveSteps.reduce(0) { $0 + $1.payloadBytes }
        XCTAssertEqual(stack.undoCount, steps)
        return withExtendedLifetime(stack) { Double(after - before - payloads) / Double(steps) }
    }

    func testRegisteredStepsCostAtMost200BytesBeyondTheirPayloads() throws {
        let steps = 100_000
        let overhead = try overheadPerStep(steps: steps) {
            var stack = UndoStack()
            for index in 0..<steps {
                try stack.register(actionName: "Change Paragraph Style", undo: [UInt8(truncatingIfNeeded: index), 1, 2],
                                   redo: [3, 4, 5, 6])
            }
            return stack
        }
        print("memory per registered step beyond payloads: \(overhead) bytes")
        XCTAssertLessThanOrEqual(overhead, 200)
    }

    func testStepsLoadedFromASnapshotCostAtMost200BytesBeyondTheirPayloads() throws {
        let steps = 100_000
        var source = UndoStack()
        for _ in 0..<steps { try source.register(actionName: "Change Paragraph Style", undo: [1, 2, 3], redo: [4]) }
        var bytes: [UInt8] = []
        let key = try UndoDocumentKey(appId: "org.example.Editor", documentId: "doc")
        let journal = UndoJournal(directory: "/nonexistent", fileName: "unused.undo", size: 0)
        let document = UndoDocument(key: key, stack: source, lastTouched: 0, journaledTouch: 0, journal: journal)
        UndoJournal.snapshotRecords(of: document) { $0.encode(into: &bytes) }
        source = UndoStack()
        let overhead = try overheadPerStep(steps: steps) {
            let replay = UndoJournal.replay(bytes, limits: UndoLimits())
            XCTAssertEqual(replay.ending, .complete)
            return replay.stack
        }
        print("memory per step loaded from a snapshot beyond payloads: \(overhead) bytes")
        XCTAssertLessThanOrEqual(overhead, 200)
    }
}
