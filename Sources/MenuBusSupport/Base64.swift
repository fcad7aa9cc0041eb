/// Base64 (RFC 4648, the standard alphabet, with padding), for bytes that
/// travel in JSON text: what Foundation's `Data(base64Encoded:)` and
/// `base64EncodedString()` do, without linking Foundation.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            let chunk = UInt32(bytes[index]) << 16 | (count > 1 ? UInt32(bytes[index + 1]) << 8 : 0)
                | (count > 2 ? UInt32(bytes[index + 2]) : 0)
            for position in 0..<4 {
                out.append(position <= count ? alphabet[Int(chunk >> (18 - 6 * position) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil for anything but whole groups of four from the alphabet, with
    /// `=` only as the last one or two characters.
    package static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / 4 * 3)
        var group = 0
        while group < characters.count {
            var chunk: UInt32 = 0, padding = 0
            for position in 0..<4 {
                let character = characters[group + position]
                if character == UInt8(ascii: "=") {
                    guard group + 4 == characters.count, position >= 2 else { return nil }
                    padding += 1
                    chunk <<= 6
                    continue
                }
                guard padding == 0, let value = sextet(character) else { return nil }
                chunk = chunk << 6 | value
            }
            out.append(UInt8(chunk >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(chunk >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(chunk & 0xFF)) }
            group += 4
        }
        return out
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
