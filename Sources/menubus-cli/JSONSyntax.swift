import MenuBusModel
/// The CLI's JSON reader (RFC 8259, UTF-8): a text to a `Value`, or where
/// it stops being JSON as "line L, column C: what was expected". It takes
/// what Foundation's `JSONSerialization` took (a scalar at the top, a
/// leading byte-order mark, nesting 512 deep, the last of repeated keys),
/// without linking Foundation and its ICU data.
struct JSONSyntax {
    private let bytes: [UInt8]
    private var index = 0

    /// A JSON value; numbers as `Double`, as JavaScript reads them.
    enum Value: Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Value])
        case object([String: Value])
    }

    struct Failure: Error {
        let offset: Int
        let expected: String
    }

    /// The value of a whole text, or where and why it is not JSON.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> Value {
        var parser = JSONSyntax(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.index < bytes.count { throw Failure(offset: parser.index, expected: "the end of the text") }
        return value
    }

    /// nil when the text is well-formed JSON.
    static func error(in bytes: [UInt8]) -> String? {
        do {
            _ = try parse(bytes)
            return nil
        } catch {
            return describe(error, in: bytes)
        }
    }

    /// "line L, column C: expected E, found F".
    static func describe(_ failure: Failure, in bytes: [UInt8]) -> String {
        let (line, column) = position(of: failure.offset, in: bytes)
        let found = failure.offset < bytes.count ? "'\(String(decoding: [bytes[failure.offset]], as: UTF8.self))'" : "the end"
        return "line \(line), column \(column): expected \(failure.expected), found \(found)"
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func position(of offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard current == byte else { throw Failure(offset: index, expected: what) }
        index += 1
    }

    private mutating func value(depth: Int) throws(Failure) -> Value {
        guard depth < 512 else { throw Failure(offset: index, expected: "less nesting") }
        switch current {
        case UInt8(ascii: "{"):
            index += 1
            skipSpace()
            var members: [String: Value] = [:]
            if current == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw Failure(offset: index, expected: "a key in double quotes") }
                let key = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"), "':' after the key")
                skipSpace()
                members[key] = try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return .object(members)
            }
        case UInt8(ascii: "["):
            index += 1
            skipSpace()
            var elements: [Value] = []
            if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                skipSpace()
                elements.append(try value(depth: depth + 1))
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return .array(elements)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case let byte? where byte == UInt8(ascii: "-") || byte.isDigit:
            return .number(try number())
        default:
            throw Failure(offset: index, expected: "a value")
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for byte in word.utf8 {
            guard current == byte else { throw Failure(offset: index, expected: "'\(word)'") }
            index += 1
        }
    }

    /// A string from its opening quote; its UTF-8 checked, its escapes
    /// read (a UTF-16 surrogate only as a pair).
    private mutating func string() throws(Failure) -> String {
        let start = index
        index += 1
        var text: [UInt8] = []
        var runStart = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                text.append(contentsOf: bytes[runStart..<index])
                index += 1
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw Failure(offset: start + 1 + Self.invalidUTF8Offset(in: bytes[(start + 1)...]), expected: "UTF-8 text")
                }
                return string
            case UInt8(ascii: "\\"):
                text.append(contentsOf: bytes[runStart..<index])
                index += 1
                try escape(into: &text)
                runStart = index
            case ..<0x20:
                throw Failure(offset: index, expected: "a control character written as an escape")
            default:
                index += 1
            }
        }
        throw Failure(offset: index, expected: "'\"' to close the string")
    }

    private mutating func escape(into text: inout [UInt8]) throws(Failure) {
        guard let escaped = current else { throw Failure(offset: index, expected: "an escape") }
        let simple: UInt8? = switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let byte = simple {
            index += 1
            text.append(byte)
            return
        }
        guard escaped == UInt8(ascii: "u") else {
            throw Failure(offset: index, expected: "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)")
        }
        let at = index - 1
        index += 1
        var unit = try hexQuad()
        if (0xD800..<0xDC00).contains(unit) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw Failure(offset: index, expected: "\\u and a low surrogate after a high one")
            }
            index += 2
            let low = try hexQuad()
            guard (0xDC00..<0xE000).contains(low) else {
                throw Failure(offset: index - 6, expected: "a low surrogate after a high one")
            }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(unit) {
            throw Failure(offset: at, expected: "a high surrogate before a low one")
        }
        guard let scalar = Unicode.Scalar(unit) else { throw Failure(offset: at, expected: "a Unicode scalar") }
        text.append(contentsOf: String(scalar).utf8)
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let hex = current, let digit = hex.hexValue else {
                throw Failure(offset: index, expected: "four hex digits after \\u")
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    /// Where the first byte that is not UTF-8 is in a string's bytes.
    private static func invalidUTF8Offset(in bytes: ArraySlice<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return offset
    }

    private mutating func number() throws(Failure) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        func digits() throws(Failure) {
            guard let byte = current, byte.isDigit else { throw Failure(offset: index, expected: "a digit") }
            while let byte = current, byte.isDigit { index += 1 }
        }
        if current == UInt8(ascii: "0") { index += 1 } else { try digits() }
        if current == UInt8(ascii: ".") { index += 1; try digits() }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            try digits()
        }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)), number.isFinite else {
            throw Failure(offset: start, expected: "a number a double holds")
        }
        return number
    }
}

private extension UInt8 {
    var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    var hexValue: UInt32? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(self - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(self - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
