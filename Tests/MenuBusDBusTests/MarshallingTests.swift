import XCTest
@testable import MenuBusDBus

/// Values written into a real libdbus message and read back.
final class MarshallingTests: XCTestCase {
    private func roundTrip(_ values: [DBusValue], file: StaticString = #filePath, line: UInt = #line) throws {
        let message = try Message.methodCall(destination: "org.example.Peer", path: "/a", interface: "org.example.I", member: "M")
        try message.append(values)
        XCTAssertEqual(message.signature.rawValue, values.map(\.signature.rawValue).joined(), file: file, line: line)
        XCTAssertEqual(try message.arguments(), values, file: file, line: line)
    }

    func testEveryBasicTypeRoundTrips() throws {
        try roundTrip([
            .byte(0xFE), .boolean(true), .boolean(false), .int16(-3), .uint16(65535), .int32(Int32.min),
            .uint32(UInt32.max), .int64(Int64.min), .uint64(UInt64.max), .double(-0.5), .string(""),
            .string("grüße ✓"), .objectPath("/org/menubus/MenuBus1"), .signature("a(ssa{sv})"),
        ])
    }

    func testEmptyArraysKeepTheirElementType() throws {
        try roundTrip([.array("s", []), .array("{sv}", []), .array("(ssa{sv})", []), .bytes([]), .array("ay", [])])
        let message = try Message.methodCall(destination: nil, path: "/", interface: nil, member: "M")
        let emptyNested: [[String]] = []
        let emptyDict: [String: DBusValue] = [:]
        try message.append([emptyNested.dbusValue, emptyDict.dbusValue])
        XCTAssertEqual(message.signature, "aasa{sv}")
    }

    func testMenuElementsShapeRoundTrips() throws {
        let properties = DBusValue.array("{sv}", [
            .dictEntry(.string("title"), .variant(.string("Copy"))),
            .dictEntry(.string("attributes"), .variant(.array("s", [.string("disabled")]))),
            .dictEntry(.string("cached"), .variant(.boolean(false))),
        ])
        try roundTrip([
            .uint32(7),
            .array("(ssa{sv})", [
                .structure([.string("copy"), .string(""), properties]),
                .structure([.string("paste"), .string("edit"), .array("{sv}", [])]),
            ]),
        ])
    }

    func testNestedVariantsAndByteArraysRoundTrip() throws {
        try roundTrip([
            .variant(.variant(.variant(.int32(3)))),
            .variant(.array("{sv}", [.dictEntry(.string("inner"), .variant(.structure([.uint32(1), .variant(.string("x"))])))])),
            .array("ay", [.bytes([1, 2, 3]), .bytes([]), .bytes(Array(repeating: 0xAB, count: 70_000))]),
            .array("{ua{sv}}", [.dictEntry(.uint32(4), .array("{sv}", []))]),
        ])
    }

    func testInvalidValuesAreRefusedBeforeLibdbusSeesThem() throws {
        let cases: [(String, DBusValue)] = [
            ("NUL in a string", .string("a\u{0}b")),
            ("element of the wrong type", .array("s", [.int32(1)])),
            ("empty struct", .structure([])),
            ("dict entry outside an array", .dictEntry(.string("k"), .int32(1))),
            ("container dict key", .array("{asv}", [.dictEntry(.array("s", []), .variant(.int32(1)))])),
            ("bad object path", .objectPath(ObjectPath(stringLiteral: "no/slash"))),
            ("bad signature", .signature(Signature(unchecked: "a{"))),
        ]
        for (label, value) in cases {
            let message = try Message.methodCall(destination: nil, path: "/", interface: nil, member: "M")
            XCTAssertThrowsError(try message.append([value]), label) { error in
                XCTAssertEqual((error as? BusError)?.name, BusError.Standard.invalidArgs, label)
            }
        }
    }

    func testAMessageLargerThanDBusCarriesIsRefusedNotSent() throws {
        let message = try Message.methodCall(destination: nil, path: "/", interface: nil, member: "M")
        let chunk = DBusValue.bytes([UInt8](repeating: 1, count: 16 << 20))
        XCTAssertThrowsError(try message.append([.array("ay", [chunk, chunk, chunk, chunk])])) { error in
            XCTAssertEqual((error as? BusError)?.name, BusError.limitExceededName)
        }
        XCTAssertNoThrow(try message.append([.array("ay", [chunk, chunk])]))
    }

    func testNamesAreCheckedBeforeLibdbus() {
        XCTAssertThrowsError(try Message.methodCall(destination: "not a name", path: "/", interface: nil, member: "M"))
        XCTAssertThrowsError(try Message.methodCall(destination: nil, path: "/", interface: "nodots", member: "M"))
        XCTAssertThrowsError(try Message.methodCall(destination: nil, path: "/", interface: nil, member: "Bad-Member"))
        XCTAssertThrowsError(try Message.methodCall(destination: nil, path: ObjectPath(stringLiteral: "/a//b"), interface: nil, member: "M"))
    }
}
