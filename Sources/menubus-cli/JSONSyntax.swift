import MenuBusModel
/// Where a JSON text stops being JSON, as "line L, column C: what was
/// expected", for the message Foundation's parser does not give.
struct JSONSyntax {
    private let bytes: [UInt8]
    private var index = 0

    struct Failure: Error {
        let offset: Int
        let expected: String
    }

    /// nil when the text is well-formed JSON.
    static func error(in bytes: [UInt8]) -> String? {
        var parser = JSONSyntax(bytes: bytes)
        do {
            parser.skipSpace()
            try parser.value(depth: 0)
            parser.skipSpace()
            if parser.index < bytes.count { throw Failure(offset: parser.index, expected: "the end of the text") }
            return nil
        } catch let failure as Failure {
            let (line, column) = position(of: failure.offset, in: bytes)
            let found = failure.offset < bytes.count ? "'\(String(decoding: [bytes[failure.offset]], as: UTF8.self))'" : "the end"
            return "line \(line), column \(column): expected \(failure.expected), found \(found)"
        } catch {
            return nil
        }
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

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        guard current == byte else { throw Failure(offset: index, expected: what) }
        index += 1
    }

    private mutating func value(depth: Int) throws {
        guard depth < 512 else { throw Failure(offset: index, expected: "less nesting") }
        switch current {
        case UInt8(ascii: "{"):
            index += 1
            skipSpace()
            if current == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw Failure(offset: index, expected: "a key in double quotes") }
                try string()
                skipSpace()
                try expect(UInt8(ascii: ":"), "':' after the key")
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return
            }
        case UInt8(ascii: "["):
            index += 1
            skipSpace()
            if current == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return
            }
        case UInt8(ascii: "\""):
            try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            try number()
        default:
            throw Failure(offset: index, expected: "a value")
        }
    }

    private mutating func literal(_ word: String) throws {
        for byte in word.utf8 {
            guard current == byte else { throw Failure(offset: index, expected: "'\(word)'") }
            index += 1
        }
    }

    private mutating func string() throws {
        index += 1
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                guard let escaped = current else { break }
                if escaped == UInt8(ascii: "u") {
                    index += 1
                    for _ in 0..<4 {
                        guard let hex = current, hex.isHexDigit else { throw Failure(offset: index, expected: "four hex digits after \\u") }
                        index += 1
                    }
                } else {
                    guard "\"\\/bfnrt".utf8.contains(escaped) else { throw Failure(offset: index, expected: "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)") }
                    index += 1
                }
            case ..<0x20:
                throw Failure(offset: index - 1, expected: "a control character written as an escape")
            default: continue
            }
        }
        throw Failure(offset: index, expected: "'\"' to close the string")
    }

    private mutating func number() throws {
        if current == UInt8(ascii: "-") { index += 1 }
        func digits() throws {
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
    }
}

private extension UInt8 {
    var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
