import XCTest
import MenuBusRandomFixtures
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
            for _ in 0..<(1 + random.next(upTo: 4)) { types.append(RandomValueTrees.randomType(&random, depth: 0)) }
            let signature = types.joined()
            guard signature.utf8.count <= 255 else { continue }
            let values = types.map { RandomValueTrees.randomValue(&random, type: Array($0.utf8)[...]) }
            for big in [false, true] {
                let label = "round \(round) \(big ? "big" : "little")-endian (\(signature))"
                var body = WireEncoder(big: big)
                values.forEach { body.encode($0) }
                let message = try WireEncoder.message(signature: signature, body: body.bytes, big: big)
                    .withUnsafeBytes { try Message(marshalled: $0) }
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
                        mutatedSignature = (0..<(1 + random.next(upTo: 3))).map { _ in RandomValueTrees.randomType(&random, depth: 0) }.joined()
                    }
                    guard mutatedSignature.utf8.count <= 255,
                          let mutated = try? WireEncoder.message(signature: mutatedSignature, body: bytes, big: big)
                              .withUnsafeBytes({ try Message(marshalled: $0) }) else {
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
}
