import XCTest
@testable import MenuBusCodec

/// Swift types carry their D-Bus signature, and a signature parses into
/// its complete types: the codec alone, no libdbus.
final class DBusTypeTests: XCTestCase {
    func testTypedConversionsCarryTheirSignature() throws {
        XCTAssertEqual([String: [UInt8]].dbusSignature, "a{say}")
        XCTAssertEqual([[UInt8]]().dbusValue.signature, "aay")
        XCTAssertEqual(try [UInt8](dbusValue: .bytes([9, 8])), [9, 8])
        XCTAssertEqual(try [String: UInt32](dbusValue: ["a": UInt32(1)].dbusValue), ["a": 1])
        XCTAssertThrowsError(try [String](dbusValue: .array("i", [.int32(1)])))
        XCTAssertThrowsError(try String(dbusValue: .uint32(1)))
    }

    func testSignatureParsing() {
        XCTAssertEqual(Signature.completeTypes(in: "sa{sv}a(ssa{sv})"), ["s", "a{sv}", "a(ssa{sv})"])
        XCTAssertEqual(Signature.completeTypes(in: ""), [])
        for bad in ["a", "(", "()", "{sv}", "a{vs}", "a{s}", "z", "(s"] {
            XCTAssertNil(Signature.completeTypes(in: bad), bad)
        }
    }
}
