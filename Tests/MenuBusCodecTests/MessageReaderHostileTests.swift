import XCTest
import MenuBusModelFixtures
import MenuBusWireFixtures
@testable import MenuBusDBus

/// The reader against what any peer on the bus can send: random value trees
/// marshalled in both byte orders, then mutated (bytes flipped, length words
/// overwritten, bodies cut or grown, signatures swapped). Every message
/// libdbus's loader accepts must read back to exactly the bytes it holds
/// (D-Bus encodes a value one way only, padding zero), so a value read from
/// the wrong offset or in the wrong order shows; nothing may crash or throw
/// anything but a `BusError`.
final class MessageReaderHostileTests: XCTestCase {
    func testRandomAndMutatedBodiesReadExactlyWhatTheyHoldInBothByteOrders() throws {
        continueAfterFailure = false  // the first failing round says it all
        var random = SplitMix(seed: 0x5265_6164_6572_2121)
        var exact = 0, refusedByLoader = 0, mutatedAccepted = 0
        for round in 0..<4_000 {
            var types: [String] = []
            for _ in 0..<(1 + random.next(upTo: 4)) { types.append(randomType(&random, depth: 0)) }
            let signature = types.joined()
            guard signature.utf8.count <= 255 else { continue }
            let values = types.map { randomValue(&random, type: Array($0.utf8)[...]) }
            for big in [false, true] {
                let label = "round \(round) \(big ? "big" : "little")-endian (\(signature))"
                var body = WireEncoder(big: big)
                values.forEach { body.encode($0) }
                let message = try WireEncoder.message(signature: signature, body: body.bytes, big: big)
                XCTAssertEqual(try message.arguments(), values, label)
                exact += 1
                for mutation in 0..<6 {
                    var bytes = body.bytes
                    var mutatedSignature = signature
                    switch random.next(upTo: 5) {
                    case 0 where !bytes.isEmpty:
                        bytes[random.next(upTo: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                    case 1 where bytes.count >= 4:
                        let at = random.next(upTo: bytes.count / 4) * 4
                        let words: [UInt32] = [0, 1, 3, 7, 8, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x0400_0000, 0x0400_0001,
                                               UInt32(bytes.count), UInt32(truncatingIfNeeded: random.next())]
                        let word = words[random.next(upTo: words.count)]
                        withUnsafeBytes(of: big ? word.bigEndian : word.littleEndian) { bytes.replaceSubrange(at..<(at + 4), with: $0) }
                    case 2 where !bytes.isEmpty:
                        bytes.removeLast(1 + random.next(upTo: min(bytes.count, 9)))
                    case 3:
                        bytes += Array(repeating: UInt8(random.next(upTo: 2)), count: 1 + random.next(upTo: 8))
                    default:
                        mutatedSignature = (0..<(1 + random.next(upTo: 3))).map { _ in randomType(&random, depth: 0) }.joined()
                    }
                    guard mutatedSignature.utf8.count <= 255,
                          let mutated = try? WireEncoder.message(signature: mutatedSignature, body: bytes, big: big) else {
                        refusedByLoader += 1
                        continue
                    }
                    mutatedAccepted += 1
                    do {
                        let read = try mutated.arguments()
                        var again = WireEncoder(big: big)
                        read.forEach { again.encode($0) }
                        XCTAssertEqual(again.bytes, bytes, "\(label), mutation \(mutation) as '\(mutatedSignature)'")
                    } catch {
                        XCTAssertTrue(error is BusError, "\(label), mutation \(mutation): \(error)")
                    }
                }
            }
        }
        // Each side was exercised: well-formed bodies, and hostile ones on
        // both sides of libdbus's checks.
        XCTAssertGreaterThan(exact, 2_000)
        XCTAssertGreaterThan(refusedByLoader, 1_000)
        XCTAssertGreaterThan(mutatedAccepted, 1_000)
    }

    // MARK: - Random trees

    private static let basic = Array("ybnqiuxtdsog".utf8)

    /// One complete type, at most a few containers deep.
    private func randomType(_ random: inout SplitMix, depth: Int) -> String {
        let pick = depth >= 4 ? random.next(upTo: 2) : random.next(upTo: 7)
        switch pick {
        case 0: return String(UnicodeScalar(Self.basic[random.next(upTo: Self.basic.count)]))
        case 1: return "v"
        case 2: return "a" + randomType(&random, depth: depth + 1)
        case 3: return "a{" + String(UnicodeScalar(Self.basic[random.next(upTo: Self.basic.count)])) + randomType(&random, depth: depth + 1) + "}"
        case 4: return "(" + (0..<(1 + random.next(upTo: 3))).map { _ in randomType(&random, depth: depth + 1) }.joined() + ")"
        default: return String(UnicodeScalar(Self.basic[random.next(upTo: Self.basic.count)]))
        }
    }

    /// The end of the complete type starting at `type.startIndex`.
    private func endOfType(_ type: ArraySlice<UInt8>) -> Int {
        var index = type.startIndex
        while type[index] == UInt8(ascii: "a") { index += 1 }
        guard type[index] == UInt8(ascii: "(") || type[index] == UInt8(ascii: "{") else { return index + 1 }
        var open = 0
        repeat {
            if type[index] == UInt8(ascii: "(") || type[index] == UInt8(ascii: "{") { open += 1 }
            if type[index] == UInt8(ascii: ")") || type[index] == UInt8(ascii: "}") { open -= 1 }
            index += 1
        } while open > 0
        return index
    }

    private func members(_ types: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = types.startIndex
        while start < types.endIndex {
            let end = endOfType(types[start...])
            result.append(types[start..<end])
            start = end
        }
        return result
    }

    private static let strings = ["", "a", "héllo", "漢字", "e\u{301}", String(repeating: "x", count: 300), "menubus:copy"]
    private static let paths = ["/", "/a", "/org/menubus/MenuBus1/menu/7", "/a_b/c9"]
    private static let signatures = ["", "s", "a{sv}", "(ii)", "aai", "vvv", "a(ssa{sv})"]

    /// A value of exactly `type`, as the reader gives it back (`ay` flat).
    private func randomValue(_ random: inout SplitMix, type: ArraySlice<UInt8>) -> DBusValue {
        let code = type[type.startIndex]
        let word = random.next()
        switch code {
        case UInt8(ascii: "y"): return .byte(UInt8(truncatingIfNeeded: word))
        case UInt8(ascii: "b"): return .boolean(word & 1 == 1)
        case UInt8(ascii: "n"): return .int16(Int16(truncatingIfNeeded: word))
        case UInt8(ascii: "q"): return .uint16(UInt16(truncatingIfNeeded: word))
        case UInt8(ascii: "i"): return .int32(Int32(truncatingIfNeeded: word))
        case UInt8(ascii: "u"): return .uint32(UInt32(truncatingIfNeeded: word))
        case UInt8(ascii: "x"): return .int64(Int64(bitPattern: word))
        case UInt8(ascii: "t"): return .uint64(word)
        case UInt8(ascii: "d"): return .double([0, -0.0, 1.5, -1e300, .infinity, .leastNonzeroMagnitude][Int(word % 6)])
        case UInt8(ascii: "s"): return .string(Self.strings[Int(word % UInt64(Self.strings.count))])
        case UInt8(ascii: "o"): return .objectPath(ObjectPath(stringLiteral: Self.paths[Int(word % UInt64(Self.paths.count))]))
        case UInt8(ascii: "g"): return .signature(Signature(unchecked: Self.signatures[Int(word % UInt64(Self.signatures.count))]))
        case UInt8(ascii: "v"):
            let inner = Array(randomType(&random, depth: 2).utf8)
            return .variant(randomValue(&random, type: inner[...]))
        case UInt8(ascii: "a"):
            let element = type.dropFirst()
            let count = random.next(upTo: 4) == 0 ? 0 : random.next(upTo: 4)
            if element.count == 1, element.first == UInt8(ascii: "y") {
                return .bytes((0..<count * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            }
            let items = (0..<count).map { _ in randomValue(&random, type: element) }
            return .array(Signature(unchecked: String(decoding: element, as: UTF8.self)), items)
        case UInt8(ascii: "("):
            return .structure(members(type.dropFirst().dropLast()).map { randomValue(&random, type: $0) })
        case UInt8(ascii: "{"):
            let pair = members(type.dropFirst().dropLast())
            return .dictEntry(randomValue(&random, type: pair[0]), randomValue(&random, type: pair[1]))
        default:
            preconditionFailure("no type \(code)")
        }
    }
}
