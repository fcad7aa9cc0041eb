import XCTest
import MenuBusRandomFixtures
@testable import MenuBusDBus

/// The limits libdbus aborts on (or a bus drops a connection over) are
/// refused by `validate` first; whatever passes goes through libdbus's own
/// wire checks.
final class ValueLimitsTests: XCTestCase {
    private func append(_ values: [DBusValue]) throws -> Message {
        let message = try Message.methodCall(destination: "org.example.Peer", path: "/a", interface: "org.example.I", member: "M")
        try message.append(values)
        return message
    }

    private func assertRefused(_ value: DBusValue, mentioning text: String, _ label: String, line: UInt = #line) {
        XCTAssertThrowsError(try append([value]), label, line: line) { error in
            XCTAssertEqual((error as? BusError)?.name, BusError.Standard.invalidArgs, label, line: line)
            XCTAssertTrue((error as? BusError)?.message.contains(text) == true, "\(label): \(error)", line: line)
        }
    }

    private func assertAccepted(_ value: DBusValue, _ label: String, line: UInt = #line) throws {
        let sent = try append([value])
        let received = try sent.throughTheWire()
        XCTAssertEqual(try received.arguments(), [value], label, line: line)
    }

    /// A struct of `count` bytes, whose signature is `count + 2` long.
    private func wideStruct(_ count: Int) -> DBusValue {
        .structure(Array(repeating: .byte(7), count: count))
    }

    func testAVariantSignatureOfMoreThan255BytesIsRefused() throws {
        try assertAccepted(.variant(wideStruct(253)), "255-byte contained signature")
        assertRefused(.variant(wideStruct(254)), mentioning: "255", "256-byte contained signature")
        // Deep inside the tree, and under an array of variants.
        assertRefused(.array("v", [.variant(.int32(1)), .variant(wideStruct(400))]), mentioning: "255", "in an array")
    }

    func testArraysNestedMoreThan32DeepInAVariantAreRefused() throws {
        func nested(_ levels: Int) -> DBusValue {
            var value = DBusValue.bytes([1, 2])
            var signature = "ay"
            for _ in 1..<levels {
                value = .array(Signature(unchecked: signature), [value])
                signature = "a" + signature
            }
            return value
        }
        try assertAccepted(.variant(nested(32)), "32 arrays")
        assertRefused(.variant(nested(33)), mentioning: "32", "33 arrays")
        // Empty arrays too: libdbus checks the signature, not the items.
        assertRefused(.variant(.array(Signature(unchecked: String(repeating: "a", count: 32) + "y"), [])), mentioning: "32", "33 empty")
    }

    func testStructsNestedMoreThan32DeepInAVariantAreRefused() throws {
        func nested(_ levels: Int) -> DBusValue {
            var value = DBusValue.byte(1)
            for _ in 0..<levels { value = .structure([value]) }
            return value
        }
        try assertAccepted(.variant(nested(32)), "32 structs")
        assertRefused(.variant(nested(33)), mentioning: "32", "33 structs")
    }

    func testMoreThan64ContainersAreRefusedAsTheReceiverCountsThem() throws {
        func variants(_ levels: Int) -> DBusValue {
            var value = DBusValue.byte(1)
            for _ in 0..<levels { value = .variant(value) }
            return value
        }
        try assertAccepted(variants(64), "64 variants")
        assertRefused(variants(65), mentioning: "64", "65 variants")
        // Each dict level is two containers (array and entry).
        func dicts(_ levels: Int) -> DBusValue {
            var value = DBusValue.variant(.byte(1))
            for _ in 0..<levels { value = .variant(.array("{sv}", [.dictEntry(.string("k"), value)])) }
            return value
        }
        try assertAccepted(dicts(21), "21 a{sv} levels: the byte inside 64 containers")
        assertRefused(dicts(22), mentioning: "64", "22 a{sv} levels: the byte inside 67 containers")
    }

    func testTopLevelSignatureTooDeepIsRefused() throws {
        var value = DBusValue.byte(1)
        for _ in 0..<33 { value = .structure([value]) }
        assertRefused(value, mentioning: "32", "33 structs at the top")
    }

    /// Random trees, biased towards the limits: every one is either refused
    /// with a BusError, or accepted by libdbus's append and its wire loader.
    func testRandomValueTreesNeverAbortAndWhatPassesIsValidOnTheWire() throws {
        var random = SplitMix(seed: 0x4D65_6E75_4275_7331)
        var accepted = 0, refused = 0
        for round in 0..<3000 {
            var nodes = 0
            let value = randomValue(&random, &nodes, depth: 0, budget: 6 + round % 90)
            do {
                let message = try append([value])
                let received = try message.throughTheWire()
                XCTAssertEqual(try received.arguments(), [value], "round \(round)")
                accepted += 1
            } catch let error as BusError {
                XCTAssertTrue(error.name == BusError.Standard.invalidArgs || error.name == BusError.limitExceededName, "round \(round): \(error)")
                refused += 1
            }
        }
        // Both sides of every limit were exercised.
        XCTAssertGreaterThan(accepted, 100, "accepted")
        XCTAssertGreaterThan(refused, 100, "refused")
    }

    /// An array as the reader gives it back: bytes stay flat.
    private static func array(of items: [DBusValue], _ signature: Signature) -> DBusValue {
        if signature == "y" { return .bytes(items.map { if case .byte(let b) = $0 { b } else { 0 } }) }
        return .array(signature, items)
    }

    private func randomValue(_ random: inout SplitMix, _ nodes: inout Int, depth: Int, budget: Int) -> DBusValue {
        nodes += 1
        let pick = random.next(upTo: depth > budget || nodes > 3000 ? 8 : 14)
        switch pick {
        case 0: return .byte(UInt8(truncatingIfNeeded: random.next()))
        case 1: return .boolean(random.next() & 1 == 0)
        case 2: return .int32(Int32(truncatingIfNeeded: random.next()))
        case 3: return .uint64(random.next())
        case 4: return .double(Double(random.next() % 1000) / 7)
        case 5: return .string(String(repeating: "x", count: random.next(upTo: 5)))
        case 6: return .objectPath("/a/b")
        case 7: return .bytes(Array(repeating: 3, count: random.next(upTo: 4)))
        case 8, 9:
            return .variant(randomValue(&random, &nodes, depth: depth + 1, budget: budget))
        case 10:
            // A chain of arrays, around the 32-level limit.
            let inner = randomValue(&random, &nodes, depth: depth + 1, budget: budget)
            var value = inner
            let levels = random.next(upTo: 3) == 0 ? 28 + random.next(upTo: 8) : 1 + random.next(upTo: 3)
            for _ in 0..<levels {
                value = Self.array(of: [value], value.signature)
            }
            return value
        case 11:
            // Wide structs make long signatures.
            let count = random.next(upTo: 4) == 0 ? 60 + random.next(upTo: 200) : 1 + random.next(upTo: 4)
            return .structure((0..<count).map { _ in
                random.next(upTo: 6) == 0 ? randomValue(&random, &nodes, depth: depth + 1, budget: budget) : .byte(1)
            })
        case 12:
            let value = randomValue(&random, &nodes, depth: depth + 1, budget: budget)
            return .array(Signature(unchecked: "{s" + value.signature.rawValue + "}"), [.dictEntry(.string("k"), value)])
        default:
            let value = randomValue(&random, &nodes, depth: depth + 1, budget: budget)
            let items = (0..<random.next(upTo: 3)).map { _ in value }
            return Self.array(of: items, value.signature)
        }
    }
}

extension ValueLimitsTests {
    func testACallsSizeIsKnownBeforeItIsDecoded() throws {
        let big = DBusValue.array("(ss)", (0..<100).map { _ in .structure([.string(String(repeating: "y", count: 1_000)), .string("")]) })
        let message = try append([.string("ctx"), big, .variant(.bytes(Array(repeating: 1, count: 5_000)))])
        let received = try message.throughTheWire()
        let size = received.bodyBytesBeforeDecoding
        XCTAssertGreaterThan(size, 105_000)
        XCTAssertLessThan(size, 110_000)
    }
}

extension ValueLimitsTests {
    /// Containers other than arrays are walked into at every depth: an
    /// array two variants down, or inside a struct in a variant, counts.
    func testAnArrayNestedInVariantsAndStructsCountsTowardsACallsSize() throws {
        let bulk = DBusValue.bytes(Array(repeating: 1, count: 100_000))
        let hidden: [DBusValue] = [
            .variant(.variant(bulk)),
            .variant(.structure([.int32(1), .variant(.variant(.structure([bulk])))])),
            .structure([.string("x"), .variant(.array("i", Array(repeating: .int32(7), count: 25_000)))]),
        ]
        for value in hidden {
            let received = try append([.int32(1), value]).throughTheWire()
            let size = received.bodyBytesBeforeDecoding
            XCTAssertGreaterThanOrEqual(size, 100_000, "\(value.signature)")
            XCTAssertLessThan(size, 100_200, "\(value.signature)")
            // The walk can stop early, once the answer is known to be over a limit.
            XCTAssertGreaterThan(received.bodyBytesBeforeDecoding(stoppingAbove: 50_000), 50_000, "\(value.signature)")
        }
    }
}
