import XCTest
import MenuBusRandomFixtures
import MenuBusWireFixtures
@testable import MenuBusCodec

/// The codec by itself, with no libdbus: what `MessageMarshaller` writes
/// the reader reads back, its body is byte for byte what the hand-written
/// `WireEncoder` makes of the same values, the reader takes either byte
/// order, and a body that does not add up is an error, never a crash.
/// (MenuBusDBusTests holds both to libdbus's writer and loader.)
final class MessageCodecTests: XCTestCase {
    private static let signal = MessageMarshaller.Header(kind: .signal, path: "/org/example/Object",
                                                         interface: "org.example.I", member: "Changed")

    /// The arguments of the body of `bytes`, a whole message, with their sizes.
    private func read(_ bytes: [UInt8], signature: String, maxValues: Int = .max) throws -> (values: [DBusValue], sizes: [Int]) {
        try bytes.withUnsafeBytes { buffer in
            try MessageReader.withBody(ofMarshalled: buffer, maxValues: maxValues) { reader in
                try reader.readArguments(Array(signature.utf8), names: ["first", "second"])
            }
        }
    }

    /// A few random complete types and a value of each; nil when their
    /// signature would be longer than a message's may be.
    private func randomArguments(_ random: inout SplitMix) -> (signature: String, values: [DBusValue])? {
        let types = (0...random.next(upTo: 4)).map { _ in RandomValueTrees.randomType(&random, depth: 0) }
        let signature = types.joined()
        guard signature.utf8.count <= 255 else { return nil }
        return (signature, types.map { RandomValueTrees.randomValue(&random, type: Array($0.utf8)[...]) })
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    func testWhatTheMarshallerWritesTheReaderReadsBackWithItsSizes() throws {
        var random = SplitMix(seed: 0x636F_6465_6331)
        var rounds = 0
        for round in 0..<2_000 {
            guard let (signature, values) = randomArguments(&random) else { continue }
            let bytes = try MessageMarshaller.message(Self.signal, signature: signature, values: values)
            let read = try read(bytes, signature: signature)
            XCTAssertEqual(read.values, values, "round \(round) (\(signature))")
            XCTAssertEqual(read.sizes, try values.map { try $0.validate(checking: false) }, "round \(round) (\(signature))")
            rounds += 1
        }
        XCTAssertGreaterThan(rounds, 1_500)
    }

    /// Two writers made apart, one in the codec and one by hand from the
    /// specification, agree to the byte (padding, alignment, lengths).
    func testTheMarshallersBodyIsWhatTheHandWrittenEncoderMakes() throws {
        var random = SplitMix(seed: 0x636F_6465_6332)
        for round in 0..<2_000 {
            guard let (signature, values) = randomArguments(&random) else { continue }
            let bytes = try MessageMarshaller.message(Self.signal, signature: signature, values: values)
            var body = WireEncoder(big: false)
            values.forEach { body.encode($0) }
            XCTAssertEqual(Self.uint32(bytes, at: 4), UInt32(body.bytes.count), "round \(round): the body length")
            XCTAssertEqual(Array(bytes.suffix(body.bytes.count)), body.bytes, "round \(round) (\(signature))")
        }
    }

    func testEitherByteOrderReadsAsItsValues() throws {
        var random = SplitMix(seed: 0x636F_6465_6333)
        for round in 0..<1_000 {
            guard let (signature, values) = randomArguments(&random) else { continue }
            for big in [false, true] {
                var body = WireEncoder(big: big)
                values.forEach { body.encode($0) }
                let bytes = WireEncoder.message(signature: signature, body: body.bytes, big: big)
                XCTAssertEqual(try read(bytes, signature: signature).values, values, "round \(round), big-endian \(big)")
            }
        }
        // A call GLib marshalled big-endian.
        XCTAssertEqual(try read(WireSamples.bigEndianCall, signature: "ynqiuxtdsogbvasa{sv}a(ii)a(xs)ayav").values,
                       WireSamples.bigEndianCallValues)
    }

    /// The header is the fields asked for, laid out as the specification
    /// says a header is (`yyyyuua(yv)`), with serial 1 for the loader.
    func testTheHeaderHoldsTheFieldsAskedForInTheSpecificationsLayout() throws {
        let header = MessageMarshaller.Header(kind: .methodCall, noReplyExpected: false, noAutoStart: true, path: "/a/b",
                                              interface: "org.example.I", member: "M", destination: ":1.7")
        let bytes = try MessageMarshaller.message(header, signature: "su", values: [.string("x"), .uint32(9)])
        // A fixed header in front whose body is the whole message reads the
        // message's own header as values.
        var whole: [UInt8] = [UInt8(ascii: "l"), 1, 0, 1]
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { whole += $0 }
        whole += Array(repeating: 0, count: 8) + bytes
        let fields = try read(whole, signature: "yyyyuua(yv)").values
        func field(_ code: UInt8, _ value: DBusValue) -> DBusValue { .structure([.byte(code), .variant(value)]) }
        XCTAssertEqual(fields, [
            .byte(UInt8(ascii: "l")), .byte(1), .byte(2), .byte(1), .uint32(12), .uint32(1),
            .array("(yv)", [field(1, .objectPath("/a/b")), field(2, .string("org.example.I")), field(3, .string("M")),
                            field(6, .string(":1.7")), field(8, .signature("su"))]),
        ])
        XCTAssertEqual(try read(bytes, signature: "su").values, [.string("x"), .uint32(9)])

        let reply = try MessageMarshaller.message(.init(kind: .error, errorName: "org.example.Error.Bad", replySerial: 5),
                                                  signature: "", values: [])
        XCTAssertEqual(Array(reply.prefix(4)), [UInt8(ascii: "l"), 3, 1, 1])
        XCTAssertEqual(Self.uint32(reply, at: 4), 0)
    }

    /// An array's items are held to its element type as they are written.
    func testAnArrayItemOfAnotherTypeIsRefused() {
        for value: DBusValue in [.array("s", [.int32(1)]), .array("u", [.int32(-1)]),
                                 .array("(su)", [.structure([.string("a"), .int32(1)])]),
                                 .array("{sv}", [.dictEntry(.objectPath("/a"), .variant(.byte(1)))])] {
            XCTAssertThrowsError(try MessageMarshaller.message(Self.signal, signature: value.signature.rawValue, values: [value]),
                                 "\(value)") { error in
                XCTAssertEqual(error as? MessageMarshaller.Refusal, .mismatched, "\(value)")
            }
        }
    }

    /// Every value and container counts one (a byte array one): past the
    /// reader's limit it stops with `LimitExceeded`.
    func testTheReaderStopsPastItsLimitOfValues() throws {
        let values: [DBusValue] = [.int32(1), .array("i", [.int32(2), .int32(3)]), .bytes([1, 2, 3])]
        let bytes = try MessageMarshaller.message(Self.signal, signature: "iaiay", values: values)
        XCTAssertEqual(try read(bytes, signature: "iaiay", maxValues: 5).values, values)
        XCTAssertThrowsError(try read(bytes, signature: "iaiay", maxValues: 4)) { error in
            XCTAssertEqual((error as? BusError)?.name, BusError.limitExceededName)
        }
    }

    /// Bodies cut short, grown, with length words overwritten or bytes
    /// flipped, read with nothing in front of the reader (no loader): each
    /// reads to values or fails with a `BusError` naming the argument.
    func testABodyThatDoesNotAddUpIsAnErrorNeverACrash() throws {
        var random = SplitMix(seed: 0x636F_6465_6334)
        var readBack = 0, refused = 0
        for round in 0..<3_000 {
            guard let (signature, values) = randomArguments(&random) else { continue }
            let big = round % 2 == 1
            var body = WireEncoder(big: big)
            values.forEach { body.encode($0) }
            var bytes = body.bytes
            switch random.next(upTo: 4) {
            case 0 where !bytes.isEmpty:
                bytes.removeLast(1 + random.next(upTo: min(bytes.count, 9)))
            case 1 where bytes.count >= 4:
                let at = random.next(upTo: bytes.count / 4) * 4
                let words: [UInt32] = [1, 3, 7, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(bytes.count), UInt32(truncatingIfNeeded: random.next())]
                let word = words[random.next(upTo: words.count)]
                withUnsafeBytes(of: big ? word.bigEndian : word.littleEndian) { bytes.replaceSubrange(at..<(at + 4), with: $0) }
            case 2 where !bytes.isEmpty:
                bytes[random.next(upTo: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            default:
                bytes += Array(repeating: 0xFF, count: 1 + random.next(upTo: 8))
                bytes = Array(bytes.dropFirst(1 + random.next(upTo: 4)))
            }
            do {
                _ = try read(WireEncoder.message(signature: signature, body: bytes, big: big), signature: signature)
                readBack += 1
            } catch let error as BusError {
                XCTAssertTrue(error.message.hasPrefix("first: ") || error.message.hasPrefix("second: ")
                              || error.message.hasPrefix("argument "), "round \(round): \(error)")
                refused += 1
            }
        }
        XCTAssertGreaterThan(readBack, 300)
        XCTAssertGreaterThan(refused, 1_000)
        // A body one byte short of its one string.
        var short = WireEncoder(big: false)
        short.encode(.string("hello"))
        XCTAssertThrowsError(try read(WireEncoder.message(signature: "s", body: Array(short.bytes.dropLast()), big: false),
                                      signature: "s")) { error in
            XCTAssertEqual(error as? BusError, BusError.invalidArgs("first: " + MessageReader.malformed.message))
        }
    }
}
