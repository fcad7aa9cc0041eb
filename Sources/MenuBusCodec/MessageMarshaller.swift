#if canImport(Glibc)
import Glibc
#endif

/// Marshals a whole message, header and body, into the bytes D-Bus puts on
/// the wire (little-endian), for libdbus's loader to take in as one piece
/// (`Message.marshalled`). It is MenuBus's one writer: every message it
/// sends (calls, replies, prepared replies, errors, signals, of any size)
/// is made here, and libdbus only loads, queues and writes it.
///
/// libdbus's writer costs far more than the bytes it writes: every value
/// goes through its generic type writer, every container's signature is
/// parsed again, and after each top-level argument it rewrites the
/// signature field inside the header it has already built, moving every
/// field after it (most of a small signal's cost). Here a value is a few
/// appends to one buffer; the loader then checks the result as a received
/// message is checked.
///
/// Each array item is held to its array's element type as it is written
/// (the loader sees only bytes and the signature, and a value of another
/// type with the same layout would pass it); the loader checks the rest.
/// Past `maxBytes` the marshalling stops: no bus takes a larger message.
package struct MessageMarshaller {
    /// The largest message marshalled here: D-Bus's 128 MiB.
    package static let maxBytes = 128 << 20

    /// Why `message` built no bytes.
    package enum Refusal: Error {
        /// An array held an item of another type than its signature's.
        case mismatched
        /// The message grew past `maxBytes`.
        case tooLarge
    }

    /// Header fields, by their codes in the D-Bus specification.
    package struct Header {
        package init(kind: MessageKind, noReplyExpected: Bool = true, noAutoStart: Bool = false, path: String? = nil,
                    interface: String? = nil, member: String? = nil, errorName: String? = nil,
                    replySerial: UInt32? = nil, destination: String? = nil, sender: String? = nil) {
            self.kind = kind
            self.noReplyExpected = noReplyExpected
            self.noAutoStart = noAutoStart
            self.path = path
            self.interface = interface
            self.member = member
            self.errorName = errorName
            self.replySerial = replySerial
            self.destination = destination
            self.sender = sender
        }

        package var kind: MessageKind
        package var noReplyExpected = true
        /// Asks the bus not to start the destination's service for this call.
        package var noAutoStart = false
        package var path: String?
        package var interface: String?
        package var member: String?
        package var errorName: String?
        package var replySerial: UInt32?
        package var destination: String?
        package var sender: String?
    }

    private(set) var bytes: [UInt8] = []
    private var mismatched = false
    private var tooLarge = false

    /// The message's bytes, with serial 1 (the loader refuses 0; the
    /// caller clears it so the connection numbers the message as it sends).
    package static func message(_ header: Header, signature: String, values: [DBusValue]) throws(Refusal) -> [UInt8] {
        var marshaller = MessageMarshaller()
        marshaller.bytes.reserveCapacity(256)
        marshaller.bytes.append(UInt8(ascii: "l"))
        marshaller.bytes.append(UInt8(header.kind.rawValue))
        marshaller.bytes.append((header.noReplyExpected ? 1 : 0) | (header.noAutoStart ? 2 : 0))
        marshaller.bytes.append(1)
        marshaller.uint32(0)  // body length, set below
        marshaller.uint32(1)  // serial
        marshaller.uint32(0)  // fields array length, set below
        let fieldsStart = marshaller.bytes.count
        if let path = header.path { marshaller.field(1, "o") { $0.string(path) } }
        if let interface = header.interface { marshaller.field(2, "s") { $0.string(interface) } }
        if let member = header.member { marshaller.field(3, "s") { $0.string(member) } }
        if let errorName = header.errorName { marshaller.field(4, "s") { $0.string(errorName) } }
        if let replySerial = header.replySerial { marshaller.field(5, "u") { $0.uint32(replySerial) } }
        if let destination = header.destination { marshaller.field(6, "s") { $0.string(destination) } }
        if let sender = header.sender { marshaller.field(7, "s") { $0.string(sender) } }
        if !signature.isEmpty { marshaller.field(8, "g") { $0.signature(signature) } }
        marshaller.set(UInt32(marshaller.bytes.count - fieldsStart), at: 12)
        // The body starts 8-aligned, so alignment from the message's start
        // is alignment within the body.
        marshaller.align(8)
        let bodyStart = marshaller.bytes.count
        for value in values {
            marshaller.write(value)
            if marshaller.mismatched { throw .mismatched }
            if marshaller.tooLarge { throw .tooLarge }
        }
        marshaller.set(UInt32(truncatingIfNeeded: marshaller.bytes.count - bodyStart), at: 4)
        return marshaller.bytes
    }

    private mutating func field(_ code: UInt8, _ type: Unicode.Scalar, _ value: (inout MessageMarshaller) -> Void) {
        align(8)
        bytes.append(code)
        bytes.append(1)
        bytes.append(UInt8(ascii: type))
        bytes.append(0)
        value(&self)
    }

    package mutating func write(_ value: DBusValue) {
        var position = 0
        write(value, expected: nil, at: &position)
    }

    /// Writes `value`. With `expected` (inside an array, whose items the
    /// element signature types), holds it to the complete type at
    /// `expected[position...]` as it goes and moves `position` past that
    /// type; a value of another type marks the message `mismatched`.
    /// Without, the value types itself (a top-level argument, a variant's
    /// content: their signatures are taken from the values).
    private mutating func write(_ value: DBusValue, expected: UnsafeBufferPointer<UInt8>?, at position: inout Int) {
        if let expected {
            guard position < expected.count, expected[position] == value.typeCode else {
                mismatched = true
                return
            }
            position += 1
        }
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let b): uint32(b ? 1 : 0)
        case .int16(let v): fixed(UInt16(bitPattern: v))
        case .uint16(let v): fixed(v)
        case .int32(let v): uint32(UInt32(bitPattern: v))
        case .uint32(let v): uint32(v)
        case .int64(let v): fixed(UInt64(bitPattern: v))
        case .uint64(let v): fixed(v)
        case .double(let v): fixed(v.bitPattern)
        case .string(let text): string(text)
        case .objectPath(let path): string(path.rawValue)
        case .signature(let text): signature(text.rawValue)
        case .variant(let inner):
            if inner.isBasic {
                bytes.append(1)
                bytes.append(inner.typeCode)
                bytes.append(0)
            } else {
                signature(inner.signature.rawValue)
            }
            write(inner)
        case .array(let element, let items):
            var text = element.rawValue
            text.withUTF8 { elementType in
                if let expected {
                    let end = position + elementType.count
                    guard end <= expected.count, elementType.elementsEqual(expected[position..<end]) else {
                        mismatched = true
                        return
                    }
                    position = end
                }
                align(4)
                let lengthAt = bytes.count
                uint32(0)
                align(Signature.alignment(of: elementType.first ?? 0))
                let start = bytes.count
                for item in items {
                    var at = 0
                    write(item, expected: elementType, at: &at)
                    if at != elementType.count { mismatched = true }
                    if bytes.count > MessageMarshaller.maxBytes { tooLarge = true }
                    if mismatched || tooLarge { return }
                }
                set(UInt32(truncatingIfNeeded: bytes.count - start), at: lengthAt)
            }
        case .bytes(let data):
            if let expected {
                guard position < expected.count, expected[position] == UInt8(ascii: "y") else {
                    mismatched = true
                    return
                }
                position += 1
            }
            guard bytes.count + data.count <= MessageMarshaller.maxBytes else {
                tooLarge = true
                return
            }
            uint32(UInt32(data.count))
            bytes += data
        case .structure(let members):
            align(8)
            for member in members { write(member, expected: expected, at: &position) }
            close(UInt8(ascii: ")"), expected, &position)
        case .dictEntry(let key, let item):
            align(8)
            write(key, expected: expected, at: &position)
            write(item, expected: expected, at: &position)
            close(UInt8(ascii: "}"), expected, &position)
        }
    }

    /// The end of a struct or dict entry in the expected type.
    private mutating func close(_ code: UInt8, _ expected: UnsafeBufferPointer<UInt8>?, _ position: inout Int) {
        guard let expected else { return }
        guard position < expected.count, expected[position] == code else {
            mismatched = true
            return
        }
        position += 1
    }

    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            guard bytes.count + utf8.count <= MessageMarshaller.maxBytes else {
                tooLarge = true
                return
            }
            uint32(UInt32(utf8.count))
            bytes += utf8
        }
        bytes.append(0)
    }

    private mutating func signature(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(UInt8(truncatingIfNeeded: utf8.count))
            bytes += utf8
        }
        bytes.append(0)
    }

    private mutating func uint32(_ value: UInt32) { fixed(value) }

    /// A fixed-size integer at its own alignment, little-endian.
    private mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        align(MemoryLayout<T>.size)
        var rest = value
        for _ in 0..<MemoryLayout<T>.size {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    private mutating func set(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// Zero bytes up to the next multiple of `boundary` (a power of two).
    private mutating func align(_ boundary: Int) {
        while bytes.count & (boundary - 1) != 0 { bytes.append(0) }
    }
}
