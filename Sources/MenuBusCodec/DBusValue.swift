/// One D-Bus value of any type, as carried in a variant or read off the wire.
///
/// Arrays keep their element signature, so an empty array still knows its type.
/// An array of bytes (`ay`) is always `.bytes`.
public enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// A variant holding one value.
    indirect case variant(DBusValue)
    /// An array with its element signature; a dict is an array of `.dictEntry`.
    case array(Signature, [DBusValue])
    /// `ay`, kept flat.
    case bytes([UInt8])
    /// A struct of one or more members.
    case structure([DBusValue])
    /// One entry of a dict; only valid as an array element.
    indirect case dictEntry(DBusValue, DBusValue)

    /// The signature of this value.
    public var signature: Signature {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .array(let element, _): Signature(unchecked: "a" + element.rawValue)
        case .bytes: "ay"
        case .structure, .dictEntry:
            Signature(unchecked: containerSignature)
        }
    }

    /// The signature of a struct or dict entry, built into one string.
    private var containerSignature: String {
        var text = ""
        appendSignature(to: &text)
        return text
    }

    private func appendSignature(to text: inout String) {
        switch self {
        case .structure(let members):
            text.append("(")
            for member in members { member.appendSignature(to: &text) }
            text.append(")")
        case .dictEntry(let key, let value):
            text.append("{")
            key.appendSignature(to: &text)
            value.appendSignature(to: &text)
            text.append("}")
        default:
            text.append(signature.rawValue)
        }
    }

    /// Checks everything libdbus would otherwise abort on or silently cut:
    /// element types matching the array's signature, strings without NUL,
    /// structs that are not empty, dict keys of a basic type, nesting depth.
    /// One pass, and no signature strings built per element. Returns about
    /// the bytes the value takes marshalled (padding ignored), so a message
    /// can be refused before it passes what D-Bus carries.
    ///
    /// Depth counts containers as libdbus's receiving side does (every array,
    /// struct, dict entry and variant is one level, at most 64 in all), and a
    /// variant's contained signature is held to the signature rules libdbus
    /// checks before it opens the variant (at most 255 bytes, arrays and
    /// structs each nested at most 32 deep): past either, libdbus would abort
    /// the process or a bus would drop the connection.
    ///
    /// With `checking` false only the bytes are counted: for a value read
    /// off the wire, which libdbus has already held to all of the above.
    @discardableResult
    package func validate(depth: Int = 0, checking: Bool = true) throws -> Int {
        guard !checking || depth <= DBusValue.maxTotalDepth else { throw BusError.invalidArgs("value nested deeper than D-Bus allows (\(DBusValue.maxTotalDepth) containers)") }
        switch self {
        case .byte:
            return 1
        case .int16, .uint16:
            return 2
        case .boolean, .int32, .uint32:
            return 4
        case .int64, .uint64, .double:
            return 8
        case .string(let text):
            guard !checking || !text.containsNUL else {
                throw BusError.invalidArgs("a string contains a NUL byte")
            }
            return 5 + text.utf8.count
        case .objectPath(let path):
            guard !checking || ObjectPath.isValid(path.rawValue) else {
                throw BusError.invalidArgs("'\(path.rawValue)' is not a valid object path")
            }
            return 5 + path.rawValue.utf8.count
        case .signature(let signature):
            guard !checking || (Signature.completeTypes(in: signature.rawValue) != nil && signature.rawValue.utf8.count <= 255) else {
                throw BusError.invalidArgs("'\(signature.rawValue)' is not a valid signature")
            }
            return 2 + signature.rawValue.utf8.count
        case .variant(let inner):
            // The variant's own signature: one code for a basic value.
            var signatureBytes = 1
            if !inner.isBasic {
                // Sized before it is built, so a huge tree costs no huge string.
                signatureBytes = checking ? try inner.variantSignature().utf8.count : inner.signature.rawValue.utf8.count
            }
            return 3 + signatureBytes + (try inner.validate(depth: depth + 1, checking: checking))
        case .bytes(let bytes):
            return 4 + bytes.count
        case .array(let element, let items):
            // A non-empty array's items prove the element signature is one
            // complete type (each matches it to the last byte); only an empty
            // one needs it parsed.
            if checking, items.isEmpty, !Signature(unchecked: "a" + element.rawValue).isSingleCompleteType {
                throw BusError.invalidArgs("array element signature '\(element.rawValue)' is not one complete type")
            }
            let elementBytes = checking ? Array(element.rawValue.utf8) : []
            var size = 4
            for item in items {
                if checking {
                    var index = 0
                    guard item.hasType(elementBytes, &index), index == elementBytes.count else {
                        throw BusError.invalidArgs("array of '\(element.rawValue)' holds a '\(item.signature.rawValue)'")
                    }
                }
                if case .dictEntry(let key, let value) = item {
                    // The entry is a level of its own, as libdbus counts it.
                    guard !checking || depth + 1 <= DBusValue.maxTotalDepth else {
                        throw BusError.invalidArgs("value nested deeper than D-Bus allows (\(DBusValue.maxTotalDepth) containers)")
                    }
                    size += try key.validate(depth: depth + 2, checking: checking)
                        + value.validate(depth: depth + 2, checking: checking)
                } else {
                    size += try item.validate(depth: depth + 1, checking: checking)
                }
            }
            return size
        case .structure(let members):
            guard !checking || !members.isEmpty else { throw BusError.invalidArgs("empty struct") }
            var size = 0
            for member in members { size += try member.validate(depth: depth + 1, checking: checking) }
            return size
        case .dictEntry:
            throw BusError.invalidArgs("a dict entry outside an array")
        }
    }

    /// libdbus's limit on containers nested in a message body
    /// (`DBUS_MAXIMUM_TYPE_RECURSION_DEPTH` × 2).
    package static let maxTotalDepth = 64

    /// The signature a variant holding this value carries, checked against
    /// what libdbus accepts in a variant: one complete type of at most 255
    /// bytes, arrays and structs nested at most 32 deep.
    package func variantSignature() throws -> String {
        var length = 0
        guard signatureLength(&length, limit: 255) else {
            throw BusError.invalidArgs("a variant's contained signature is longer than the 255 bytes D-Bus allows")
        }
        let text = signature.rawValue
        guard Signature.completeTypes(in: text)?.count == 1 else {
            throw BusError.invalidArgs("a variant's contained signature nests arrays or structs deeper than the 32 levels D-Bus allows")
        }
        return text
    }

    /// Adds this value's signature length to `length`; false as soon as it
    /// passes `limit`, without visiting the rest of the tree.
    private func signatureLength(_ length: inout Int, limit: Int) -> Bool {
        switch self {
        case .array(let element, _):
            length += 1 + element.rawValue.utf8.count
        case .bytes:
            length += 2
        case .structure(let members):
            length += 2
            for member in members where !member.signatureLength(&length, limit: limit) { return false }
        case .dictEntry(let key, let value):
            length += 2
            guard key.signatureLength(&length, limit: limit), value.signatureLength(&length, limit: limit) else { return false }
        default:
            length += 1
        }
        return length <= limit
    }

    /// Whether this value is of the one complete type at `signature[index...]`;
    /// advances `index` past it. Dict keys must be basic (the signature says so).
    package func hasType(_ signature: [UInt8], _ index: inout Int) -> Bool {
        guard index < signature.count else { return false }
        let code = signature[index]
        index += 1
        switch self {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath,
             .signature, .variant:
            return code == typeCode
        case .bytes:
            guard code == UInt8(ascii: "a"), index < signature.count, signature[index] == UInt8(ascii: "y") else { return false }
            index += 1
            return true
        case .array(let element, _):
            guard code == UInt8(ascii: "a") else { return false }
            for byte in element.rawValue.utf8 {
                guard index < signature.count, signature[index] == byte else { return false }
                index += 1
            }
            return true
        case .structure(let members):
            guard code == UInt8(ascii: "(") else { return false }
            for member in members {
                guard member.hasType(signature, &index) else { return false }
            }
            guard index < signature.count, signature[index] == UInt8(ascii: ")") else { return false }
            index += 1
            return true
        case .dictEntry(let key, let value):
            guard code == UInt8(ascii: "{"), key.isBasic, key.hasType(signature, &index),
                  value.hasType(signature, &index),
                  index < signature.count, signature[index] == UInt8(ascii: "}") else { return false }
            index += 1
            return true
        }
    }

    /// The first code of this value's signature.
    package var typeCode: UInt8 {
        switch self {
        case .byte: UInt8(ascii: "y")
        case .boolean: UInt8(ascii: "b")
        case .int16: UInt8(ascii: "n")
        case .uint16: UInt8(ascii: "q")
        case .int32: UInt8(ascii: "i")
        case .uint32: UInt8(ascii: "u")
        case .int64: UInt8(ascii: "x")
        case .uint64: UInt8(ascii: "t")
        case .double: UInt8(ascii: "d")
        case .string: UInt8(ascii: "s")
        case .objectPath: UInt8(ascii: "o")
        case .signature: UInt8(ascii: "g")
        case .variant: UInt8(ascii: "v")
        case .array, .bytes: UInt8(ascii: "a")
        case .structure: UInt8(ascii: "(")
        case .dictEntry: UInt8(ascii: "{")
        }
    }

    package var isBasic: Bool {
        switch self {
        case .variant, .array, .bytes, .structure, .dictEntry: false
        default: true
        }
    }
}

extension String {
    /// Whether a NUL byte is in the string (libdbus would cut it there),
    /// checked over its contiguous UTF-8 at once rather than by index.
    package var containsNUL: Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? utf8.contains(0)
    }
}

extension DBusValue {
    /// The string inside `.string` (or `.objectPath`, `.signature`), else nil.
    public var stringValue: String? {
        switch self {
        case .string(let text): text
        case .objectPath(let path): path.rawValue
        case .signature(let signature): signature.rawValue
        default: nil
        }
    }

    /// The value inside a variant, or the value itself.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A dict `a{s?}` as Swift pairs, in wire order; nil for any other value.
    package var dictEntries: [(key: DBusValue, value: DBusValue)]? {
        guard case .array(_, let items) = self else { return nil }
        var result: [(key: DBusValue, value: DBusValue)] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .dictEntry(let key, let value) = item else { return nil }
            result.append((key, value))
        }
        return result
    }
}
