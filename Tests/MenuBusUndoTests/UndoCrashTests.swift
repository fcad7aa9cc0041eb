#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import MenuBusUndo
import MenuBusModel

/// A writer killed with SIGKILL mid-stream loses no step it acknowledged:
/// the journal alone, in a forked child, without D-Bus (the service's own
/// crash test runs the daemon).
final class UndoCrashTests: XCTestCase {
    let app = "org.example.Editor"
    let document = "crash"

    /// Payloads of step `index`: sizes vary (0…1,999 bytes) so a kill can land inside any write.
    private func undoPayload(_ index: Int) -> [UInt8] {
        withUnsafeBytes(of: Int64(index).littleEndian, Array.init)
            + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: (index &* 7_919) % 2_000)
    }

    /// In the child: registers steps from `first` on, writing each index to
    /// `fd` after `perform` returned (the acknowledgement), syncing every 50.
    private func writeForever(directory: String, from first: Int, to fd: Int32) -> Never {
        let store = UndoStore(stateDirectory: directory)
        _ = store.loadAll()
        var index = first
        while true {
            let operation = UndoOperation.register(actionName: "Step \(index)", undo: undoPayload(index),
                                                   redo: [UInt8(truncatingIfNeeded: index)], mergeKey: "")
            guard (try? store.perform(operation, appId: app, documentId: document, now: Time.start)) != nil else { _exit(1) }
            var acknowledged = Int64(index)
            guard write(fd, &acknowledged, 8) == 8 else { _exit(2) }
            if index % 50 == 0 { store.sync() }
            index += 1
        }
    }

    /// Starts a writer, lets it acknowledge at least `count` steps, kills it
    /// with SIGKILL; returns the last index it acknowledged.
    private func killWriter(directory: String, from first: Int, after count: Int) throws -> Int {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let child = fork()
        if child == 0 {
            close(fds[0])
            writeForever(directory: directory, from: first, to: fds[1])
        }
        close(fds[1])
        defer { close(fds[0]) }
        var last = first - 1
        var killed = false
        var buffer = [UInt8](repeating: 0, count: 8 * 512)
        var pending: [UInt8] = []
        while true {
            var poller = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) > 0 else {
                kill(child, SIGKILL)
                XCTFail("the writer stopped acknowledging")
                break
            }
            let got = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if got <= 0 { break }   // EOF: the writer is gone and everything it wrote is read
            pending += buffer[0..<got]
            while pending.count >= 8 {
                last = Int(pending[0..<8].withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
                pending.removeFirst(8)
            }
            if !killed, last - first + 1 >= count {
                XCTAssertEqual(kill(child, SIGKILL), 0)
                killed = true
            }
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        XCTAssertTrue(killed)
        XCTAssertEqual(status & 0x7F, SIGKILL, "the writer died of SIGKILL, not of an error")
        return last
    }

    func testWriterKilledWithSigkillLosesNoAcknowledgedStep() throws {
        let directory = try TemporaryDirectory()
        var acknowledged = -1
        for round in 0..<3 {
            acknowledged = try killWriter(directory: directory.path, from: acknowledged + 1, after: 1_500 + 700 * round)
            let store = UndoStore(stateDirectory: directory.path)
            let report = store.loadAll()
            for finding in report.findings {
                guard case .tornTail = finding.kind else { return XCTFail("\(finding)") }
            }
            var stack = try XCTUnwrap(store.documents[try UndoDocumentKey(appId: app, documentId: document)]?.stack)
            // Every acknowledged step, and at most the one being acknowledged when the kill came.
            XCTAssertGreaterThanOrEqual(stack.undoCount, acknowledged + 1, "round \(round)")
            XCTAssertLessThanOrEqual(stack.undoCount, acknowledged + 2, "round \(round)")
            acknowledged = stack.undoCount - 1
            var index = acknowledged
            while stack.state.canUndo {
                let move = try stack.undo()
                XCTAssertEqual(move, UndoStack.Move(actionName: "Step \(index)", payloads: [undoPayload(index)]))
                index -= 1
            }
            XCTAssertEqual(index, -1)
            store.close()
        }
    }
}
