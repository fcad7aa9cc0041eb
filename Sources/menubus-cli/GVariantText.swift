import MenuBus
import MenuBusModel

/// D-Bus values in GVariant text notation, as `gdbus monitor` and
/// `gdbus call` print them (g_variant_print with type annotations): a
/// message body is a tuple, `('text', uint32 7, objectpath '/a/b',
/// <true>, {'key': <int64 -1>}, @as [])`. What this prints, GLib's
/// g_variant_parse reads back as the same values.
enum GVariantText {
    /// A message's arguments as the tuple GLib prints for its body.
    static func body(_ arguments: [DBusValue]) -> String {
        tuple(arguments.map { print($0, annotate: true) })
    }

    /// One value. `annotate`: name the type where the text alone would not
    /// say it (`uint32 7`, `@a{sv} {}`), as GLib does for the first value of
    /// each array and for every member of a tuple or variant.
    static func print(_ value: DBusValue, annotate: Bool) -> String {
        func typed(_ name: String, _ text: String) -> String { annotate ? name + " " + text : text }
        switch value {
        case .byte(let v): return typed("byte", hex(v))
        case .boolean(let v): return v ? "true" : "false"
        case .int16(let v): return typed("int16", "\(v)")
        case .uint16(let v): return typed("uint16", "\(v)")
        case .int32(let v): return "\(v)"
        case .uint32(let v): return typed("uint32", "\(v)")
        case .int64(let v): return typed("int64", "\(v)")
        case .uint64(let v): return typed("uint64", "\(v)")
        case .double(let v): return double(v)
        case .string(let v): return quote(v)
        case .objectPath(let v): return typed("objectpath", quote(v.rawValue))
        case .signature(let v): return typed("signature", quote(v.rawValue))
        case .variant(let inner): return "<" + print(inner, annotate: true) + ">"
        case .structure(let members): return tuple(members.map { print($0, annotate: annotate) })
        case .dictEntry(let key, let value):
            return "{" + print(key, annotate: annotate) + ", " + print(value, annotate: annotate) + "}"
        case .bytes(let bytes):
            if let text = byteString(bytes) { return text }
            return list(bytes.map(DBusValue.byte), of: value, annotate: annotate)
        case .array(_, let items):
            return list(items, of: value, annotate: annotate)
        }
    }

    /// `[first, second]`, `{k: v, k2: v2}` for a dict, `@TYPE []` when empty.
    private static func list(_ items: [DBusValue], of array: DBusValue, annotate: Bool) -> String {
        let isDict = array.signature.rawValue.hasPrefix("a{")
        guard !items.isEmpty else { return (annotate ? "@" + array.signature.rawValue + " " : "") + (isDict ? "{}" : "[]") }
        let parts = items.enumerated().map { index, item -> String in
            let first = annotate && index == 0
            if isDict, case .dictEntry(let key, let value) = item {
                return print(key, annotate: first) + ": " + print(value, annotate: first)
            }
            return print(item, annotate: first)
        }
        return isDict ? "{" + parts.joined(separator: ", ") + "}" : "[" + parts.joined(separator: ", ") + "]"
    }

    /// `(a, b)`, and `(a,)` for one member, as GVariant writes a 1-tuple.
    private static func tuple(_ parts: [String]) -> String {
        "(" + parts.joined(separator: ", ") + (parts.count == 1 ? ",)" : ")")
    }

    /// `b'text'` for an `ay` that is printable text ending in one NUL, as GLib prints a bytestring.
    private static func byteString(_ bytes: [UInt8]) -> String? {
        guard bytes.count > 1, bytes.last == 0,
              bytes.dropLast().allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return "b" + quote(String(decoding: bytes.dropLast(), as: UTF8.self))
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }

    /// A double always shows it is one (`1.0`, not `1`); GVariant text has
    /// `inf` and `nan`.
    private static func double(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return "\(value)"
    }

    /// Single quotes unless the text holds one and no double quote, as
    /// GLib chooses.
    static func quote(_ text: String) -> String {
        MenuJSON.quote(text, mark: text.contains("'") && !text.contains("\"") ? "\"" : "'")
    }
}
