/// Reads a message's body into `DBusValue`s straight from its marshalled
/// bytes, following the body's signature: one pass over memory instead of
/// several libdbus iterator calls per value (what a live change's call
/// spent most of its decoding on).
///
/// libdbus has validated every message it hands out (the loader checks the
/// body against its signature, alignment, UTF-8, nesting); every read here
/// is still checked against the body's end and the signature, so a body
/// that does not add up is an error, never a crash. Unix fds travel outside
/// the body and are not read here (`Connection+BusDaemon` reads the one
/// reply that carries one). `MessageReader.withBody(of:)` reads a libdbus
/// message.
package struct MessageReader {
    package let body: UnsafeRawBufferPointer
    private let littleEndian: Bool
    package private(set) var offset = 0
    /// Values this message may still decode into (`maxValues`).
    package var valuesLeft = Int.max
    /// About the bytes the values read so far take, as `DBusValue.validate`
    /// counts them (padding left out): budgets charge a call's arguments
    /// this without walking the values again.
    package private(set) var counted = 0

    /// Runs `body` with a reader at the start of the body of `bytes`, a
    /// whole marshalled message (header and body, as on the wire).
    package static func withBody<Result>(ofMarshalled bytes: UnsafeRawBufferPointer, maxValues: Int,
                                         _ body: (inout MessageReader) throws -> Result) throws -> Result {
        // Fixed header: byte order, type, flags, version, body length (u32).
        guard bytes.count >= 16 else { throw MessageReader.malformed }
        let littleEndian = bytes[0] == UInt8(ascii: "l")
        var header = MessageReader(body: bytes, littleEndian: littleEndian)
        header.offset = 4
        let bodyLength = Int(try header.uint32())
        // The body is the message's tail; it starts 8-aligned, so alignment
        // within it is alignment within the message.
        guard bodyLength <= bytes.count - 16 else { throw MessageReader.malformed }
        var reader = MessageReader(body: UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - bodyLength)...]),
                                   littleEndian: littleEndian)
        reader.valuesLeft = maxValues
        return try body(&reader)
    }

    /// Every argument of the body's `signature`, with their sizes.
    package mutating func readArguments(_ signature: [UInt8], names: [String]) throws -> (values: [DBusValue], sizes: [Int]) {
        var values: [DBusValue] = []
        var sizes: [Int] = []
        var reader = self
        defer { self = reader }
        try signature.withUnsafeBytes { signature in
            var position = 0
            while position < signature.count {
                do {
                    let before = reader.counted
                    values.append(try reader.value(signature, &position))
                    sizes.append(reader.counted - before)
                } catch let error as BusError {
                    let name = values.count < names.count ? names[values.count] : "argument \(values.count)"
                    throw BusError(name: error.name, message: "\(name): \(error.message)")
                }
            }
        }
        return (values, sizes)
    }

    private init(body: UnsafeRawBufferPointer, littleEndian: Bool) {
        self.body = body
        self.littleEndian = littleEndian
    }

    package static let malformed = BusError.invalidArgs("the message body does not match its signature")
    package static let tooManyValues = BusError.limitExceeded(
        "the call holds more values than the most any call may (the decoding stopped)")

    /// The value of the complete type at `signature[position...]`; moves
    /// `position` past that type.
    package mutating func value(_ signature: UnsafeRawBufferPointer, _ position: inout Int) throws -> DBusValue {
        guard position < signature.count else { throw MessageReader.malformed }
        guard valuesLeft > 0 else { throw MessageReader.tooManyValues }
        valuesLeft -= 1
        let code = signature[position]
        position += 1
        switch code {
        case UInt8(ascii: "y"): counted += 1; return .byte(try fixed(1, UInt8.self))
        case UInt8(ascii: "b"): return .boolean(try booleanValue())
        case UInt8(ascii: "n"): counted += 2; return .int16(Int16(bitPattern: try fixed(2, UInt16.self)))
        case UInt8(ascii: "q"): counted += 2; return .uint16(try fixed(2, UInt16.self))
        case UInt8(ascii: "i"): counted += 4; return .int32(Int32(bitPattern: try uint32()))
        case UInt8(ascii: "u"): counted += 4; return .uint32(try uint32())
        case UInt8(ascii: "x"): counted += 8; return .int64(Int64(bitPattern: try fixed(8, UInt64.self)))
        case UInt8(ascii: "t"): counted += 8; return .uint64(try fixed(8, UInt64.self))
        case UInt8(ascii: "d"): counted += 8; return .double(Double(bitPattern: try fixed(8, UInt64.self)))
        case UInt8(ascii: "s"): return .string(try string(lengthBytes: 4))
        case UInt8(ascii: "o"): return .objectPath(ObjectPath(stringLiteral: try string(lengthBytes: 4)))
        case UInt8(ascii: "g"): return .signature(Signature(unchecked: try string(lengthBytes: 1)))
        case UInt8(ascii: "v"):
            // The contained signature is read where it lies in the body.
            let contained = try variantSignature()
            var inner = 0
            let value = try value(contained, &inner)
            guard inner == contained.count else { throw MessageReader.malformed }
            return .variant(value)
        case UInt8(ascii: "a"):
            return try array(signature, &position)
        case UInt8(ascii: "("):
            try align(8)
            var members: [DBusValue] = []
            members.reserveCapacity(4)
            while position < signature.count, signature[position] != UInt8(ascii: ")") {
                members.append(try value(signature, &position))
            }
            guard position < signature.count, !members.isEmpty else { throw MessageReader.malformed }
            position += 1
            return .structure(members)
        case UInt8(ascii: "{"):
            try align(8)
            let key = try value(signature, &position)
            let item = try value(signature, &position)
            guard position < signature.count, signature[position] == UInt8(ascii: "}") else { throw MessageReader.malformed }
            position += 1
            return .dictEntry(key, item)
        case UInt8(ascii: "h"):
            throw BusError.invalidArgs("a unix file descriptor ('h') is not accepted")
        default:
            throw BusError.invalidArgs("unsupported D-Bus type '\(Character(UnicodeScalar(code)))'")
        }
    }

    /// An array whose element type starts at `signature[position]`; `ay` stays flat.
    private mutating func array(_ signature: UnsafeRawBufferPointer, _ position: inout Int) throws -> DBusValue {
        let elementStart = position
        let elementEnd = try MessageReader.endOfType(signature, at: elementStart)
        let end = try beginArray(elementAlignment: Signature.alignment(of: signature[elementStart]))
        position = elementEnd
        if elementEnd - elementStart == 1, signature[elementStart] == UInt8(ascii: "y") {
            counted += end - offset
            defer { offset = end }
            return .bytes(Array(body[offset..<end]))
        }
        var items: [DBusValue] = []
        while offset < end {
            var element = elementStart
            items.append(try value(signature, &element))
        }
        guard offset == end else { throw MessageReader.malformed }
        let element = String(decoding: UnsafeRawBufferPointer(rebasing: signature[elementStart..<elementEnd]), as: UTF8.self)
        return .array(Signature(unchecked: element), items)
    }

    /// Where the complete type starting at `signature[start]` ends.
    package static func endOfType(_ signature: UnsafeRawBufferPointer, at start: Int) throws -> Int {
        var index = start
        // An array's element type follows its `a`.
        while index < signature.count, signature[index] == UInt8(ascii: "a") { index += 1 }
        guard index < signature.count else { throw MessageReader.malformed }
        let code = signature[index]
        index += 1
        guard code == UInt8(ascii: "(") || code == UInt8(ascii: "{") else { return index }
        var open = 1
        while open > 0 {
            guard index < signature.count else { throw MessageReader.malformed }
            switch signature[index] {
            case UInt8(ascii: "("), UInt8(ascii: "{"): open += 1
            case UInt8(ascii: ")"), UInt8(ascii: "}"): open -= 1
            default: break
            }
            index += 1
        }
        return index
    }

    /// Adds the bytes of the complete type at `signature[position...]` to
    /// `total` and moves past it, reading only lengths: an array counts its
    /// length word and length (everything inside it), a string, object path
    /// or signature 5 bytes and its length, a fixed value 8, a variant,
    /// struct or dict entry 1 and what it holds, walked into (each holds a
    /// bounded number of values, nested at most 64 deep by D-Bus's rules).
    /// Stops once `total` passes `limit`.
    package mutating func countBytes(_ signature: UnsafeRawBufferPointer, _ position: inout Int,
                             into total: inout Int, limit: Int) throws {
        guard position < signature.count else { throw MessageReader.malformed }
        let code = signature[position]
        switch code {
        case UInt8(ascii: "a"):
            let elementEnd = try MessageReader.endOfType(signature, at: position + 1)
            let end = try beginArray(elementAlignment: Signature.alignment(of: signature[position + 1]))
            total += 4 + (end - offset)
            offset = end
            position = elementEnd
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            total += 5 + (try stringBytes(lengthBytes: code == UInt8(ascii: "g") ? 1 : 4)).count
            position += 1
        case UInt8(ascii: "v"):
            total += 1
            let contained = try variantSignature()
            var inner = 0
            try countBytes(contained, &inner, into: &total, limit: limit)
            position += 1
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            total += 1
            try align(8)
            position += 1
            while position < signature.count, signature[position] != UInt8(ascii: ")"),
                  signature[position] != UInt8(ascii: "}") {
                try countBytes(signature, &position, into: &total, limit: limit)
                if total > limit { return }
            }
            guard position < signature.count else { throw MessageReader.malformed }
            position += 1
        default:
            let size = Signature.alignment(of: code)
            try align(size)
            try advance(by: size, counting: 0)
            total += 8
            position += 1
        }
    }

    /// A `b`.
    package mutating func booleanValue() throws -> Bool {
        counted += 4
        return try uint32() != 0
    }

    /// An array's length word, then the padding to its elements'
    /// `alignment` (there even when it is empty): where the array ends.
    package mutating func beginArray(elementAlignment alignment: Int) throws -> Int {
        let length = Int(try uint32())
        counted += 4
        try align(alignment)
        guard length <= body.count - offset else { throw MessageReader.malformed }
        return offset + length
    }

    /// A variant's contained signature, where it lies in the body.
    package mutating func variantSignature() throws -> UnsafeRawBufferPointer {
        // `validate` counts a variant as 3 bytes and its signature's.
        counted += 1
        return try stringBytes(lengthBytes: 1)
    }

    /// Whether the body is little-endian.
    package var isLittleEndian: Bool { littleEndian }

    /// Moves `count` bytes on, counting `bytes` as read: for bytes a caller
    /// read before and knows to be the same.
    package mutating func advance(by count: Int, counting bytes: Int) throws {
        guard count >= 0, count <= body.count - offset else { throw MessageReader.malformed }
        offset += count
        counted += bytes
    }

    package mutating func align(_ boundary: Int) throws {
        let aligned = (offset + boundary - 1) & ~(boundary - 1)
        guard aligned <= body.count else { throw MessageReader.malformed }
        offset = aligned
    }

    package mutating func uint32() throws -> UInt32 {
        try fixed(4, UInt32.self)
    }

    /// A fixed-size integer of `size` bytes, aligned to its size, in the message's byte order.
    private mutating func fixed<T: FixedWidthInteger>(_ size: Int, _ type: T.Type) throws -> T {
        try align(size)
        guard size <= body.count - offset else { throw MessageReader.malformed }
        let raw = body.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return littleEndian ? T(littleEndian: raw) : T(bigEndian: raw)
    }

    /// The bytes of a string, object path or signature as they lie in the
    /// body, not copied: its length (`lengthBytes` wide), its bytes, a NUL.
    package mutating func stringBytes(lengthBytes: Int) throws -> UnsafeRawBufferPointer {
        let length = lengthBytes == 1 ? Int(try fixed(1, UInt8.self)) : Int(try uint32())
        guard length < body.count - offset, body[offset + length] == 0 else { throw MessageReader.malformed }
        counted += lengthBytes + length + 1
        let bytes = UnsafeRawBufferPointer(rebasing: body[offset..<(offset + length)])
        offset += length + 1
        return bytes
    }

    package mutating func string(lengthBytes: Int) throws -> String {
        String(decoding: try stringBytes(lengthBytes: lengthBytes), as: UTF8.self)
    }
}
