import XCTest
import MenuBusRandomFixtures
@testable import MenuBusDBus

/// Messages marshalled in Swift (`Message.marshalled`, what every message
/// is sent as) hold byte for byte the body libdbus's own writer
/// (`LibdbusWriter`, kept in the tests as the reference) makes of the same
/// values, carry the header fields asked for, and refuse what MenuBus
/// refused before it wrote with libdbus.
final class MessageMarshallerTests: XCTestCase {
    private func marshalledSignal(_ values: [DBusValue], destination: String? = nil) throws -> Message {
        try Message.marshalled(.init(kind: .signal, path: "/org/example/Object", interface: "org.example.I",
                                     member: "Changed", destination: destination), values)
    }

    private func written(_ values: [DBusValue]) throws -> Message {
        try LibdbusWriter.written(values)
    }

    private func assertSameBody(_ values: [DBusValue], _ label: String = "", line: UInt = #line) throws {
        let ours = try marshalledSignal(values)
        let libdbus = try written(values)
        XCTAssertEqual(ours.signature, libdbus.signature, label, line: line)
        XCTAssertEqual(ours.body, libdbus.body, label, line: line)
        XCTAssertEqual(try ours.arguments(), values, label, line: line)
    }

    func testEveryTypeIsMarshalledAsLibdbusWritesIt() throws {
        try assertSameBody([
            .byte(0xFE), .boolean(true), .int16(-3), .byte(1), .uint16(65535), .byte(2), .int32(Int32.min),
            .byte(3), .uint32(UInt32.max), .byte(4), .int64(Int64.min), .uint64(UInt64.max), .double(-0.5),
            .string(""), .string("grüße ✓"), .objectPath("/org/menubus/MenuBus1"), .signature("a(ssa{sv})"),
        ])
        try assertSameBody([.byte(1), .array("s", []), .byte(2), .array("{sv}", []), .byte(3), .array("(ssa{sv})", []),
                            .byte(4), .bytes([]), .array("ay", []), .array("x", [])])
        try assertSameBody([
            .byte(9),
            .variant(.variant(.variant(.int32(3)))),
            .variant(.array("{sv}", [.dictEntry(.string("inner"), .variant(.structure([.uint32(1), .variant(.string("x"))])))])),
            .array("ay", [.bytes([1, 2, 3]), .bytes([]), .bytes(Array(repeating: 0xAB, count: 70_000))]),
            .array("{ua{sv}}", [.dictEntry(.uint32(4), .array("{sv}", []))]),
            .structure([.byte(1), .double(2), .structure([.int16(3), .int64(4)])]),
            .array("(yt)", [.structure([.byte(1), .uint64(2)]), .structure([.byte(3), .uint64(4)])]),
        ])
    }

    func testRandomValueTreesAreMarshalledAsLibdbusWritesThem() throws {
        var random = SplitMix(seed: 0x6D61_7273_6861_6C6C)
        for round in 0..<2000 {
            let values = (0...random.next(upTo: 3)).map { _ in Self.randomValue(&random, depth: 0) }
            try assertSameBody(values, "round \(round)")
        }
    }

    /// A body past 1 MiB (which libdbus's writer used to build) is
    /// marshalled here too, with the same result, and past what D-Bus
    /// carries it is refused as before.
    func testALargeMessageIsMarshalledAsLibdbusWritesIt() throws {
        let large: [DBusValue] = [.string("before"), .bytes(Array(repeating: 0xA5, count: (1 << 20) + 1)),
                                  .array("s", Array(repeating: .string("item"), count: 10))]
        try assertSameBody(large)
        let message = try marshalledSignal(large, destination: ":1.9")
        XCTAssertEqual(message.destination, ":1.9")
        XCTAssertEqual(message.member, "Changed")
        XCTAssertFalse(message.expectsReply)
        try assertSameBody([.array("s", Array(repeating: .string(String(repeating: "x", count: 1000)), count: 1100))])

        let tooLarge: [DBusValue] = [.bytes(Array(repeating: 0, count: Message.maxBodyBytes + 1))]
        let ours = Self.error { try self.marshalledSignal(tooLarge) }
        let libdbus = Self.error { try self.written(tooLarge) }
        XCTAssertEqual(ours?.name, libdbus?.name)
        XCTAssertEqual(ours?.message, libdbus?.message)
        XCTAssertEqual(ours?.name, BusError.limitExceededName)
    }

    /// Budgets charge an argument what the reader counted while reading it:
    /// the same bytes `DBusValue.validate` counts over the decoded value.
    func testTheReaderCountsEachArgumentAsValidateDoes() throws {
        var random = SplitMix(seed: 0x7369_7A65_7321)
        for round in 0..<1000 {
            let values = (0...random.next(upTo: 3)).map { _ in Self.randomValue(&random, depth: 0) }
            let read = try MessageReader.argumentsAndSizes(of: try marshalledSignal(values))
            XCTAssertEqual(read.values, values, "round \(round)")
            XCTAssertEqual(read.sizes, try values.map { try $0.validate(checking: false) }, "round \(round)")
        }
    }

    func testTheHeaderCarriesWhatWasAskedAndTheConnectionNumbersIt() throws {
        let message = try marshalledSignal([.string("x")], destination: ":1.42")
        XCTAssertEqual(message.kind, .signal)
        XCTAssertEqual(message.path, "/org/example/Object")
        XCTAssertEqual(message.interface, "org.example.I")
        XCTAssertEqual(message.member, "Changed")
        XCTAssertEqual(message.destination, ":1.42")
        XCTAssertEqual(message.serial, 0, "the serial is the sending connection's to set")
        XCTAssertFalse(message.expectsReply)

        let peerToPeer = try Message.marshalled(.init(kind: .methodReturn, replySerial: 5, destination: nil), [.uint32(1)])
        XCTAssertNil(peerToPeer.destination)
        XCTAssertEqual(peerToPeer.replySerial, 5)
        XCTAssertFalse(peerToPeer.expectsReply)

        let reply = try Message.marshalled(.init(kind: .methodReturn, replySerial: 77, destination: ":1.7"), [])
        XCTAssertEqual(reply.kind, .methodReturn)
        XCTAssertEqual(reply.replySerial, 77)
        XCTAssertEqual(reply.destination, ":1.7")
        XCTAssertEqual(reply.signature, "")
        XCTAssertEqual(try reply.arguments(), [])
    }

    func testWhatAppendRefusesIsRefusedWithTheSameError() throws {
        let refused: [DBusValue] = [
            .string("a\0b"), .objectPath(ObjectPath(stringLiteral: "not/a/path")), .structure([]),
            .array("s", [.int32(1)]), .array("u", [.int32(-1)]), .dictEntry(.string("k"), .string("v")),
            // Items laid out as their array's type says, but of another type:
            // the loader would take each of these as the declared one.
            .array("au", [.array("i", [.int32(-1)])]), .array("(su)", [.structure([.string("a"), .int32(1)])]),
            .array("(ii)", [.structure([.int64(5)])]), .array("(s)", [.structure([.objectPath("/a")])]),
            .array("{sv}", [.dictEntry(.objectPath("/a"), .variant(.byte(1)))]),
        ]
        for value in refused {
            let libdbus = Self.error { try self.written([value]) }
            let ours = Self.error { try self.marshalledSignal([value]) }
            XCTAssertNotNil(libdbus, "\(value)")
            XCTAssertEqual(ours?.name, libdbus?.name, "\(value)")
            XCTAssertEqual(ours?.message, libdbus?.message, "\(value)")
        }
        XCTAssertThrowsError(try Message.marshalled(.init(kind: .signal, path: "/a", interface: "no interface",
                                                          member: "M"), [])) { error in
            XCTAssertEqual((error as? BusError)?.name, BusError.Standard.invalidArgs)
        }
    }

    /// What the Swift marshaller makes, libdbus's loader takes in and
    /// reads back as the values written. (The marshaller's own "checked"
    /// mode, which let a connection write bytes to the bus socket, is gone
    /// with that socket write (issue 29); every message now goes through
    /// the loader.)
    func testMarshalledMessagesAreWhatTheLoaderAccepts() throws {
        var random = SplitMix(seed: 0x6368_6563_6B65_64)
        for round in 0..<2000 {
            let values = (0...random.next(upTo: 3)).map { _ in Self.randomValue(&random, depth: 0) }
            let header = MessageMarshaller.Header(kind: .signal, path: "/org/example/Object", interface: "org.example.I",
                                                  member: "Changed", destination: round % 2 == 0 ? nil : ":1.7")
            let signature = values.map(\.signature.rawValue).joined()
            let bytes = try MessageMarshaller.message(header, signature: signature, values: values)
            let loaded = try bytes.withUnsafeBytes { try Message(marshalled: $0) }
            XCTAssertEqual(try loaded.arguments(), values, "round \(round)")
        }
    }

    /// Whatever the loader would refuse, in the values or in the header,
    /// is refused before it reaches a connection.
    func testWhatTheLoaderRefusesIsRefused() throws {
        let signal = MessageMarshaller.Header(kind: .signal, path: "/a", interface: "org.example.I", member: "M")
        let refusedByTheLoader: [[DBusValue]] = [
            [.string("a\0b")], [.array("s", [.string("x"), .string("\0")])],
            [.variant(.string("nul \0 inside"))],
            [.objectPath(ObjectPath(stringLiteral: "not/a/path"))], [.objectPath(ObjectPath(stringLiteral: "/a//b"))],
            [.signature(Signature(unchecked: "a{vs}"))], [.signature(Signature(unchecked: "(i"))],
            [.variant(.array(Signature(unchecked: "{vs}"), []))], [.array(Signature(unchecked: "{vs}"), [])],
            [.structure([])], [.dictEntry(.string("k"), .string("v"))],
            // An empty array's type is all there is to hold it to.
            [.array(Signature(unchecked: "ss"), [])], [.structure([.array(Signature(unchecked: "sa{sv}"), [])])],
            [.variant(.array(Signature(unchecked: "ss"), []))],
        ]
        for values in refusedByTheLoader {
            let bytes = try MessageMarshaller.message(signal, signature: values.map(\.signature.rawValue).joined(),
                                                      values: values)
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try Message(marshalled: $0) }, "\(values)")
            XCTAssertThrowsError(try Message.marshalled(signal, values), "\(values)")
        }
        var headers: [MessageMarshaller.Header] = []
        for change in [{ (h: inout MessageMarshaller.Header) in h.member = "no member" },
                       { $0.destination = "not a bus name" }, { $0.interface = nil },
                       { $0.path = "/org/freedesktop/DBus/Local" },
                       { $0.interface = "org.freedesktop.DBus.Local" }] {
            var header = signal
            change(&header)
            headers.append(header)
        }
        headers += [MessageMarshaller.Header(kind: .methodReturn, destination: ":1.7"),
                    MessageMarshaller.Header(kind: .methodReturn, replySerial: 0, destination: ":1.7")]
        for header in headers {
            let bytes = try MessageMarshaller.message(header, signature: "s", values: [.string("x")])
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try Message(marshalled: $0) }, "\(header)")
            XCTAssertThrowsError(try Message.marshalled(header, [.string("x")]), "\(header)")
        }
        XCTAssertNoThrow(try Message.marshalled(MessageMarshaller.Header(kind: .methodReturn, replySerial: 3),
                                                [.string("x")]))

        func nested(_ depth: Int) -> DBusValue {
            (0..<depth).reduce(DBusValue.int32(1)) { inner, _ in .variant(inner) }
        }
        XCTAssertNoThrow(try Message.marshalled(signal, [nested(32)]))
    }

    private static func error(_ body: () throws -> Message) -> BusError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? BusError ?? BusError.failed("\(error)")
        }
    }

    /// A value of any type, containers nested a few deep, with basic values
    /// of every alignment between them so padding is exercised.
    private static func randomValue(_ random: inout SplitMix, depth: Int) -> DBusValue {
        switch random.next(upTo: depth > 3 ? 12 : 18) {
        case 0: return .byte(UInt8(truncatingIfNeeded: random.next()))
        case 1: return .boolean(random.next() & 1 == 0)
        case 2: return .int16(Int16(truncatingIfNeeded: random.next()))
        case 3: return .uint16(UInt16(truncatingIfNeeded: random.next()))
        case 4: return .int32(Int32(truncatingIfNeeded: random.next()))
        case 5: return .uint32(UInt32(truncatingIfNeeded: random.next()))
        case 6: return .int64(Int64(truncatingIfNeeded: random.next()))
        case 7: return .uint64(random.next())
        case 8: return .double(Double(random.next() % 1000) / 7)
        case 9: return .string(String(repeating: "é", count: random.next(upTo: 6)))
        case 10: return .objectPath(random.next(upTo: 2) == 0 ? "/" : "/a/b_c")
        case 11: return .bytes((0..<random.next(upTo: 7)).map { UInt8($0) })
        case 12, 13: return .variant(randomValue(&random, depth: depth + 1))
        case 14:
            return .structure((0...random.next(upTo: 4)).map { _ in randomValue(&random, depth: depth + 1) })
        case 15:
            let value = randomValue(&random, depth: depth + 1)
            let keys: [DBusValue] = [.string("k"), .byte(1), .int64(2), .uint16(3)]
            let key = keys[random.next(upTo: keys.count)]
            let entries = (0..<random.next(upTo: 3)).map { _ in DBusValue.dictEntry(key, value) }
            return .array(Signature(unchecked: "{" + key.signature.rawValue + value.signature.rawValue + "}"), entries)
        case 16:
            return .signature(Signature(unchecked: randomValue(&random, depth: depth + 1).signature.rawValue))
        default:
            let value = randomValue(&random, depth: depth + 1)
            if case .byte = value { return .bytes([1, 2]) }
            let items = (0..<random.next(upTo: 3)).map { _ in value }
            return .array(value.signature, items)
        }
    }
}
