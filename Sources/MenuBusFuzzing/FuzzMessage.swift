#if DEBUG
@testable import MenuBusDBus

/// Messages built around fuzzed bodies: a method call's header in the byte
/// order asked for, then the body, handed to libdbus's loader as a peer's
/// message would be. Most inputs spend their bytes on the body, not on a
/// header libdbus would refuse.
enum FuzzMessage {
    /// Input layout: flags (bit 0: big-endian), signature length, the
    /// signature, the body.
    static func split(_ data: UnsafeRawBufferPointer) -> (big: Bool, signature: [UInt8], body: [UInt8])? {
        guard data.count >= 2 else { return nil }
        let big = data[0] & 1 == 1
        let length = Int(data[1])
        guard data.count >= 2 + length else { return nil }
        return (big, Array(data[2..<(2 + length)]), Array(data[(2 + length)...]))
    }

    /// The loader's message for `body` under `signature`, nil when libdbus refuses it.
    static func message(signature: [UInt8], body: [UInt8], big: Bool) -> Message? {
        guard signature.count <= 255 else { return nil }
        let bytes = marshalled(signature: signature, body: body, big: big)
        return bytes.withUnsafeBytes { try? Message(marshalled: $0) }
    }

    /// Input layout for a target with a fixed signature: flags, then the body.
    static func message(fixedSignature signature: String, _ data: UnsafeRawBufferPointer) -> Message? {
        guard let flags = data.first else { return nil }
        return message(signature: Array(signature.utf8), body: Array(data.dropFirst()), big: flags & 1 == 1)
    }

    /// A method call's marshalled bytes: fixed header, the header fields
    /// (path, interface, member, signature), padding, `body`.
    static func marshalled(signature: [UInt8], body: [UInt8], big: Bool) -> [UInt8] {
        var bytes: [UInt8] = [big ? UInt8(ascii: "B") : UInt8(ascii: "l"), 1, 0, 1]
        func pad(_ alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }
        func put32(_ value: UInt32) {
            withUnsafeBytes(of: big ? value.bigEndian : value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func field(_ code: UInt8, _ type: Character, _ text: [UInt8]) {
            pad(8)
            bytes += [code, 1, type.asciiValue!, 0]
            if type == "g" {
                bytes.append(UInt8(text.count))
            } else {
                pad(4)
                put32(UInt32(text.count))
            }
            bytes += text
            bytes.append(0)
        }
        put32(UInt32(body.count))
        put32(7)
        let lengthAt = bytes.count
        put32(0)
        pad(8)
        let fieldsStart = bytes.count
        field(1, "o", Array("/a".utf8))
        field(2, "s", Array("org.example.I".utf8))
        field(3, "s", Array("M".utf8))
        if !signature.isEmpty { field(8, "g", signature) }
        let length = UInt32(bytes.count - fieldsStart)
        withUnsafeBytes(of: big ? length.bigEndian : length.littleEndian) {
            bytes.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0)
        }
        pad(8)
        return bytes + body
    }

    /// Input bytes for `values` as `split` takes them, or without the
    /// signature for a fixed-signature target (seeds; little-endian).
    static func input(_ values: [DBusValue], withSignature: Bool = true) -> [UInt8] {
        let body = body(of: values)
        let signature = Array(values.map { $0.signature.rawValue }.joined().utf8)
        return withSignature ? [0, UInt8(signature.count)] + signature + body : [0] + body
    }

    /// `values` marshalled by libdbus, in this machine's (little-endian) order.
    static func body(of values: [DBusValue]) -> [UInt8] {
        guard let message = try? Message.methodCall(destination: nil, path: "/a", interface: "org.example.I", member: "M"),
              (try? message.append(values)) != nil, let body = message.body else { return [] }
        return Array(body.dropFirst())
    }
}
#endif
