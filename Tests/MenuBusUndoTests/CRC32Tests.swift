import XCTest
@testable import MenuBusUndo
import MenuBusModel

final class CRC32Tests: XCTestCase {
    func testChecksumMatchesTheStandardCheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
        XCTAssertEqual(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)), 0x414F_A339)
    }

    func testFeedingInPiecesEqualsFeedingAtOnce() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = CRC32.checksum(bytes)
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            var crc = CRC32()
            crc.update(bytes[..<split])
            crc.update(bytes[split...])
            XCTAssertEqual(crc.value, whole, "split at \(split)")
        }
    }

    func testEveryFlippedBitChangesTheChecksum() {
        let bytes = Array("a record body".utf8)
        let whole = CRC32.checksum(bytes)
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= UInt8(1 << bit)
                XCTAssertNotEqual(CRC32.checksum(flipped), whole)
            }
        }
    }

    func testZlibAndTheTablesAgree() throws {
        XCTAssertNotNil(CRC32.zlib, "libz.so.1 is on every Debian system")
        var seed: UInt64 = 42
        for length in [0, 1, 7, 8, 9, 63, 1_000, 65_537, 1 << 20] {
            let bytes = (0..<length).map { _ -> UInt8 in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1
                return UInt8(truncatingIfNeeded: seed >> 33)
            }
            var fast = CRC32(), tables = CRC32()
            bytes.withUnsafeBytes { fast.update($0); tables.updateWithTables($0) }
            XCTAssertEqual(fast.value, tables.value, "\(length) bytes")
            // In two pieces, continuing from the first's value.
            var split = CRC32()
            bytes.withUnsafeBytes { raw in
                split.update(UnsafeRawBufferPointer(rebasing: raw[..<(length / 3)]))
                split.update(UnsafeRawBufferPointer(rebasing: raw[(length / 3)...]))
            }
            XCTAssertEqual(split.value, tables.value, "\(length) bytes in two pieces")
        }
    }
}
