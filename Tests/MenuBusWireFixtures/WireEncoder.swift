import MenuBusCodec

/// The D-Bus wire format written by hand, in either byte order: what a
/// peer that is not libdbus (GDBus, a hostile one) puts on the bus.
package struct WireEncoder {
    package var bytes: [UInt8] = []
    package let big: Bool

    package init(big: Bool) { self.big = big }

    package mutating func pad(_ boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        pad(MemoryLayout<T>.size)
        withUnsafeBytes(of: big ? value.bigEndian : value.littleEndian) { bytes += $0 }
    }

    private mutating func text(_ text: String, wide: Bool) {
        let utf8 = Array(text.utf8)
        if wide { integer(UInt32(utf8.count)) } else { bytes.append(UInt8(utf8.count)) }
        bytes += utf8
        bytes.append(0)
    }

    private static func alignment(of code: UInt8?) -> Int {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 4
        }
    }

    package mutating func encode(_ value: DBusValue) {
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let v): integer(UInt32(v ? 1 : 0))
        case .int16(let v): integer(v)
        case .uint16(let v): integer(v)
        case .int32(let v): integer(v)
        case .uint32(let v): integer(v)
        case .int64(let v): integer(v)
        case .uint64(let v): integer(v)
        case .double(let v): integer(v.bitPattern)
        case .string(let v): text(v, wide: true)
        case .objectPath(let v): text(v.rawValue, wide: true)
        case .signature(let v): text(v.rawValue, wide: false)
        case .variant(let inner):
            text(inner.signature.rawValue, wide: false)
            encode(inner)
        case .bytes(let v):
            integer(UInt32(v.count))
            bytes += v
        case .array(let element, let items):
            integer(UInt32(0))
            let lengthAt = bytes.count - 4
            pad(Self.alignment(of: element.rawValue.utf8.first))
            let start = bytes.count
            items.forEach { encode($0) }
            let length = UInt32(bytes.count - start)
            withUnsafeBytes(of: big ? length.bigEndian : length.littleEndian) {
                bytes.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0)
            }
        case .structure(let members):
            pad(8)
            members.forEach { encode($0) }
        case .dictEntry(let key, let item):
            pad(8)
            encode(key)
            encode(item)
        }
    }
}

extension WireEncoder {
    /// The bytes of a method call with `body` under `signature`, marshalled
    /// in the given order by hand: what a received message holds before
    /// libdbus's loader (`Message(marshalled:)`) or the reader takes it in.
    package static func message(signature: String, body: [UInt8], big: Bool) -> [UInt8] {
        var header = WireEncoder(big: big)
        header.bytes = [big ? UInt8(ascii: "B") : UInt8(ascii: "l"), 1, 0, 1]
        header.encode(.uint32(UInt32(body.count)))
        header.encode(.uint32(7))
        var fields: [DBusValue] = [
            .structure([.byte(1), .variant(.objectPath("/a"))]),
            .structure([.byte(2), .variant(.string("org.example.I"))]),
            .structure([.byte(3), .variant(.string("M"))]),
        ]
        if !signature.isEmpty { fields.append(.structure([.byte(8), .variant(.signature(Signature(unchecked: signature)))])) }
        header.encode(.array("(yv)", fields))
        header.pad(8)
        return header.bytes + body
    }
}
