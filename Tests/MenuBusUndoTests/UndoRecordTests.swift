import XCTest
@testable import MenuBusUndo
import MenuBusModel

final class UndoRecordTests: XCTestCase {
    private func key() throws -> UndoDocumentKey {
        try UndoDocumentKey(appId: "org.example.Editor", documentId: "file:///home/u/a.txt")
    }

    func testEveryKindOfRecordDecodesToWhatWasEncoded() throws {
        var step = UndoStep(actionName: "Typing", mergeKey: "t", undo: [1, 2], redo: [3])
        step.append(undo: [], redo: [4, 5, 6])
        let records: [UndoRecord] = [
            .header(try key()),
            .touched(-5),
            .touched(Time.start),
            .operation(.register(actionName: "Typing", undo: [0, 1, 255], redo: [], mergeKey: "typing")),
            .operation(.register(actionName: "", undo: [], redo: [7], mergeKey: "")),
            .operation(.beginGroup(actionName: "Replace All ✓")),
            .operation(.endGroup), .operation(.undo), .operation(.redo), .operation(.markClean),
            .operation(.setLimit(levels: 42)), .operation(.clear),
            .snapshot(UndoRecord.Snapshot(stepCount: 3, undoCount: 2, cleanUndoCount: nil, dropped: 7, levels: 0)),
            .snapshot(UndoRecord.Snapshot(stepCount: 3, undoCount: 3, cleanUndoCount: 1, dropped: 0, levels: 9)),
            .snapshotStep(step),
        ]
        for record in records {
            let bytes = record.encoded
            guard case let .record(body) = UndoRecord.frame(in: bytes, at: 0) else {
                XCTFail("no frame for \(record)")
                continue
            }
            XCTAssertEqual(body, UndoRecord.frameBytes..<bytes.count)
            XCTAssertEqual(UndoRecord.decode(bytes, body: body), record)
            switch record {
            case let .operation(operation):
                XCTAssertEqual(UndoRecord.encodedCount(of: operation), bytes.count, "the budget's count of \(operation)")
            case .touched:
                XCTAssertEqual(UndoRecord.touchedCount, bytes.count)
            default: break
            }
        }
    }

    func testFramesTellTornFromDamaged() throws {
        let bytes = UndoRecord.operation(.register(actionName: "A", undo: [1], redo: [2], mergeKey: "")).encoded
        XCTAssertEqual(UndoRecord.frame(in: Array(bytes.dropLast()), at: 0), .truncated)
        XCTAssertEqual(UndoRecord.frame(in: Array(bytes.prefix(5)), at: 0), .truncated)
        var length = bytes
        length[0] ^= 0x01
        XCTAssertEqual(UndoRecord.frame(in: length, at: 0), .badLength)
        var body = bytes
        body[body.count - 1] ^= 0x80
        XCTAssertEqual(UndoRecord.frame(in: body, at: 0), .badChecksum(end: bytes.count))
    }

    func testMalformedBodiesDoNotDecode() {
        func framed(_ body: [UInt8]) -> [UInt8] {
            let length = UInt32(body.count)
            var bytes: [UInt8] = []
            for value in [length, ~length, CRC32.checksum(body)] {
                bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                          UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
            }
            return bytes + body
        }
        let bodies: [[UInt8]] = [
            [],                                  // no kind
            [0x7F],                              // unknown kind
            [0x13, 0x00],                        // undo with a byte left over
            [0x10, 0x05, 0, 0, 0, 0x41],         // register: a name longer than the record
            [0x11, 0x02, 0, 0, 0, 0xC3, 0x28],   // begin group: invalid UTF-8
            [0x01] + Array("MBUNDO".utf8) + [2, 1, 0, 0, 0, 0x61, 1, 0, 0, 0, 0x62], // header of version 2
            [0x01] + Array("MBUNDO".utf8) + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0x62],      // header with an empty app id
        ]
        for body in bodies {
            let bytes = framed(body)
            guard case let .record(range) = UndoRecord.frame(in: bytes, at: 0) else {
                XCTFail("frame")
                continue
            }
            XCTAssertNil(UndoRecord.decode(bytes, body: range), "\(body)")
        }
    }
}
