/// A D-Bus type signature such as `a{sv}` or `(ssa{sv})`.
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// Wraps a signature already known to be valid (literals in this code base).
    public init(stringLiteral value: String) {
        rawValue = value
    }

    package init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// The alignment on the wire of values of the type whose signature
    /// starts with `code`.
    package static func alignment(of code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 4
        }
    }

    /// Validates `rawValue` as a D-Bus signature (any number of complete types).
    public init(validating rawValue: String) throws {
        guard Signature.completeTypes(in: rawValue) != nil, rawValue.utf8.count <= 255 else {
            throw BusError.invalidArgs("'\(rawValue)' is not a valid D-Bus signature")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The complete types this signature is made of, or nil if it is malformed.
    package var completeTypes: [Signature]? {
        Signature.completeTypes(in: rawValue)?.map(Signature.init(unchecked:))
    }

    /// True when this signature is exactly one complete type.
    package var isSingleCompleteType: Bool { completeTypes?.count == 1 }

    package static func + (lhs: Signature, rhs: Signature) -> Signature {
        Signature(unchecked: lhs.rawValue + rhs.rawValue)
    }

    /// Splits a signature into complete types; nil when malformed.
    package static func completeTypes(in text: String) -> [String]? {
        let bytes = Array(text.utf8)
        var index = 0
        var result: [String] = []
        while index < bytes.count {
            let start = index
            guard parseOne(bytes, &index, arrayDepth: 0, structDepth: 0) else { return nil }
            result.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        return result
    }

    private static let basicCodes = Set("ybnqiuxtdsogh".utf8)

    private static func parseOne(_ bytes: [UInt8], _ index: inout Int, arrayDepth: Int, structDepth: Int) -> Bool {
        guard index < bytes.count, arrayDepth <= 32, structDepth <= 32 else { return false }
        let code = bytes[index]
        index += 1
        if basicCodes.contains(code) || code == UInt8(ascii: "v") {
            return true
        }
        switch code {
        case UInt8(ascii: "a"):
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                guard index < bytes.count, basicCodes.contains(bytes[index]) else { return false }
                index += 1
                guard parseOne(bytes, &index, arrayDepth: arrayDepth + 1, structDepth: structDepth + 1),
                      index < bytes.count, bytes[index] == UInt8(ascii: "}") else { return false }
                index += 1
                return true
            }
            return parseOne(bytes, &index, arrayDepth: arrayDepth + 1, structDepth: structDepth)
        case UInt8(ascii: "("):
            var members = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                guard parseOne(bytes, &index, arrayDepth: arrayDepth, structDepth: structDepth + 1) else { return false }
                members += 1
            }
            guard index < bytes.count, members > 0 else { return false }
            index += 1
            return true
        default:
            return false
        }
    }
}
