import MenuBusCodec
import MenuBusRandomFixtures

/// Random D-Bus types and values of exactly those types, as the reader gives
/// them back (`ay` flat): every basic type, variants, arrays, dicts and
/// structs a few containers deep, with strings, paths and signatures on the
/// edges (empty, long, combining marks).
package enum RandomValueTrees {
    private static let basic = Array("ybnqiuxtdsog".utf8)

    /// One complete type, at most a few containers deep.
    package static func randomType(_ random: inout SplitMix, depth: Int) -> String {
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
    private static func endOfType(_ type: ArraySlice<UInt8>) -> Int {
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

    private static func members(_ types: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
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
    package static func randomValue(_ random: inout SplitMix, type: ArraySlice<UInt8>) -> DBusValue {
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
