import XCTest
import MenuBusWireFixtures
@testable import MenuBusDBus

/// `Message.arguments()` reads the marshalled body itself; a message in
/// either byte order reads as libdbus would hand it out value by value
/// (`ValueLimitsTests` round-trips random trees in this machine's order).
final class MessageReaderTests: XCTestCase {
    func testABigEndianBodyReadsAsItsValues() throws {
        let bytes = WireSamples.bigEndianCall
        let message = try bytes.withUnsafeBytes { try Message(marshalled: $0) }
        XCTAssertEqual(message.signature, "ynqiuxtdsogbvasa{sv}a(ii)a(xs)ayav")
        XCTAssertEqual(try message.arguments(), WireSamples.bigEndianCallValues)
    }

    func testTheSameValuesReadTheSameInThisMachinesOrder() throws {
        let big = try WireSamples.bigEndianCall.withUnsafeBytes { try Message(marshalled: $0) }
        let native = try Message.methodCall(destination: "org.example.Peer", path: "/a", interface: "org.example.I", member: "M")
        try native.append(try big.arguments())
        XCTAssertEqual(try native.throughTheWire().arguments(), try big.arguments())
    }

    func testAMessageWithoutABodyHasNoArguments() throws {
        let message = try Message.methodCall(destination: "org.example.Peer", path: "/a", interface: "org.example.I", member: "M")
        XCTAssertEqual(try message.throughTheWire().arguments(), [])
    }
}
