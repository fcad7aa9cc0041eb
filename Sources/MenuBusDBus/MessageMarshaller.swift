/// Marshals a whole message, header and body, into the bytes D-Bus puts on
/// the wire (little-endian), for libdbus's loader to take in as one piece
/// (`Message.marshalled`).
///
/// libdbus's writer costs far more than the bytes it writes: every value
/// goes through its generic type writer, every container's signature is
/// parsed again, and after each top-level argument it rewrites the
/// signature field inside the header it has already built, moving every
/// field after it (most of a small signal's cost). Here a value is a few
/// appends to one buffer; the loader then checks the result as a received
/// message is checked.
///
/// Nothing is checked here but that each array item is of its array's type
/// (at its first signature code); the loader checks the rest.
struct MessageMarshaller {
    /// Header fields, by their codes in the D-Bus specification.
    struct Header {
        var kind: Message.Kind
        var noReplyExpected = true
        var path: String?
        var interface: String?
        var member: String?
        var replySerial: UInt32?
        var destination: String?
    }

    private(set) var bytes: [UInt8] = []
    /// An array held an item of another type than its signature's.
    private var mismatched = false

    /// The message's bytes, with serial 1 (the loader refuses 0; the
    /// caller clears it so the connection numbers the message as it sends),
    /// and the body's length; nil if an array held an item of another type.
    static func message(_ header: Header, signature: String, values: [DBusValue]) -> (bytes: [UInt8], bodyLength: Int)? {
        var marshaller = MessageMarshaller()
        marshaller.bytes.reserveCapacity(256)
        marshaller.bytes.append(UInt8(ascii: "l"))
        marshaller.bytes.append(UInt8(header.kind.rawValue))
        marshaller.bytes.append(header.noReplyExpected ? 1 : 0)
        marshaller.bytes.append(1)
        marshaller.uint32(0)  // body length, set below
        marshaller.uint32(1)  // serial
        marshaller.uint32(0)  // fields array length, set below
        let fieldsStart = marshaller.bytes.count
        if let path = header.path { marshaller.field(1, "o") { $0.string(path) } }
        if let interface = header.interface { marshaller.field(2, "s") { $0.string(interface) } }
        if let member = header.member { marshaller.field(3, "s") { $0.string(member) } }
        if let replySerial = header.replySerial { marshaller.field(5, "u") { $0.uint32(replySerial) } }
        if let destination = header.destination { marshaller.field(6, "s") { $0.string(destination) } }
        if !signature.isEmpty { marshaller.field(8, "g") { $0.signature(signature) } }
        marshaller.set(UInt32(marshaller.bytes.count - fieldsStart), at: 12)
        // The body starts 8-aligned, so alignment from the message's start
        // is alignment within the body.
        marshaller.align(8)
        let bodyStart = marshaller.bytes.count
        for value in values { marshaller.write(value) }
        let bodyLength = marshaller.bytes.count - bodyStart
        marshaller.set(UInt32(truncatingIfNeeded: bodyLength), at: 4)
        return marshaller.mismatched ? nil : (marshaller.bytes, bodyLength)
    }

    private mutating func field(_ code: UInt8, _ type: Unicode.Scalar, _ value: (inout MessageMarshaller) -> Void) {
        align(8)
        bytes.append(code)
        bytes.append(1)
        bytes.append(UInt8(ascii: type))
        bytes.append(0)
        value(&self)
    }

    mutating func write(_ value: DBusValue) {
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
                bytes.append(MessageMarshaller.code(of: inner))
                bytes.append(0)
            } else {
                signature(inner.signature.rawValue)
            }
            write(inner)
        case .array(let element, let items):
            align(4)
            let lengthAt = bytes.count
            uint32(0)
            let code = element.rawValue.utf8.first ?? 0
            align(MessageMarshaller.alignment(of: code))
            let start = bytes.count
            for item in items {
                if MessageMarshaller.code(of: item) != code { mismatched = true }
                write(item)
            }
            set(UInt32(bytes.count - start), at: lengthAt)
        case .bytes(let data):
            uint32(UInt32(data.count))
            bytes += data
        case .structure(let members):
            align(8)
            for member in members { write(member) }
        case .dictEntry(let key, let item):
            align(8)
            write(key)
            write(item)
        }
    }

    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
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

    /// The alignment of values of the type whose signature starts with `code`.
    private static func alignment(of code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 4
        }
    }

    /// The first code of `value`'s signature.
    private static func code(of value: DBusValue) -> UInt8 {
        switch value {
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
}
