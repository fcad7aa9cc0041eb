import MenuBusModel
import MenuBusDBus

/// Typed reads of the values inside an `a{sv}`, each naming its field and
/// the expected and received signature when the type is wrong.
package enum WireValue {
    static let dictSignature: Signature = "a{sv}"

    /// The entries of an `a{sv}` in wire order, variants opened; a repeated
    /// key is returned twice (readers keep the last, as GLib does).
    package static func entries(of value: DBusValue, field: @autoclosure () -> String) throws(ModelError) -> [(key: String, value: DBusValue)] {
        guard case .array(let element, let items) = value, element == "{sv}" else {
            throw mismatch(value, expected: dictSignature, field: field())
        }
        guard items.count <= Limits.maxDictEntries else {
            throw .limit(field(), "\(items.count) entries are more than the limit of \(Limits.maxDictEntries)")
        }
        var result: [(key: String, value: DBusValue)] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .dictEntry(.string(let key), let inner) = item else {
                throw .invalid(field(), "expected entries of '{sv}', got one of '\(item.signature.rawValue)'")
            }
            if case .variant(let content) = inner {
                result.append((key, content))
            } else {
                result.append((key, inner))
            }
        }
        return result
    }

    package static func string(_ value: DBusValue, field: @autoclosure () -> String) throws(ModelError) -> String {
        guard case .string(let text) = value else { throw mismatch(value, expected: "s", field: field()) }
        return text
    }

    package static func bool(_ value: DBusValue, field: @autoclosure () -> String) throws(ModelError) -> Bool {
        guard case .boolean(let flag) = value else { throw mismatch(value, expected: "b", field: field()) }
        return flag
    }

    package static func uint32(_ value: DBusValue, field: @autoclosure () -> String) throws(ModelError) -> UInt32 {
        guard case .uint32(let number) = value else { throw mismatch(value, expected: "u", field: field()) }
        return number
    }

    /// An `as` of at most `maxCount` entries.
    package static func strings(_ value: DBusValue, field: @autoclosure () -> String, maxCount: Int) throws(ModelError) -> [String] {
        guard case .array(let element, let items) = value, element == "s" else {
            throw mismatch(value, expected: "as", field: field())
        }
        guard items.count <= maxCount else {
            throw .limit(field(), "\(items.count) entries are more than the limit of \(maxCount)")
        }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .string(let text) = item else {
                throw .invalid(field(), "expected entries of 's', got one of '\(item.signature.rawValue)'")
            }
            result.append(text)
        }
        return result
    }

    /// An `s` that must be one of `E`'s raw values.
    package static func enumeration<E: RawRepresentable & CaseIterable>(
        _ value: DBusValue, _ type: E.Type, field: @autoclosure () -> String
    ) throws(ModelError) -> E where E.RawValue == String {
        try parse(try string(value, field: field()), type, field: field())
    }

    /// An `as` whose entries must each be one of `E`'s raw values.
    static func enumerations<E: RawRepresentable & CaseIterable>(
        _ value: DBusValue, _ type: E.Type, field: @autoclosure () -> String, maxCount: Int
    ) throws(ModelError) -> [E] where E.RawValue == String {
        var result: [E] = []
        for text in try strings(value, field: field(), maxCount: maxCount) {
            result.append(try parse(text, type, field: field()))
        }
        return result
    }

    package static func parse<E: RawRepresentable & CaseIterable>(
        _ text: String, _ type: E.Type, field: @autoclosure () -> String
    ) throws(ModelError) -> E where E.RawValue == String {
        guard let parsed = E(rawValue: text) else {
            let known = E.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalid(field(), "unknown value \(ModelError.quoted(text)); expected one of \(known)")
        }
        return parsed
    }

    package static func int32(_ value: DBusValue, field: @autoclosure () -> String) throws(ModelError) -> Int32 {
        guard case .int32(let number) = value else { throw mismatch(value, expected: "i", field: field()) }
        return number
    }

    /// An `(iiii)`: x, y, width, height.
    package static func rect(_ value: DBusValue, field: @autoclosure () -> String) throws(ModelError) -> Rect {
        guard case .structure(let members) = value, members.count == 4,
              case .int32(let x) = members[0], case .int32(let y) = members[1],
              case .int32(let width) = members[2], case .int32(let height) = members[3] else {
            throw mismatch(value, expected: "(iiii)", field: field())
        }
        let rect = Rect(x: x, y: y, width: width, height: height)
        try rect.validate(field: field())
        return rect
    }

    package static func rectValue(_ rect: Rect) -> DBusValue {
        .structure([.int32(rect.x), .int32(rect.y), .int32(rect.width), .int32(rect.height)])
    }

    /// `value` as the wire shows it: a variant.
    package static func entry(_ key: String, _ value: DBusValue) -> DBusValue {
        .dictEntry(.string(key), .variant(value))
    }

    static func stringArray(_ items: [String]) -> DBusValue {
        .array("s", items.map(DBusValue.string))
    }

    package static func mismatch(_ value: DBusValue, expected: Signature, field: String) -> ModelError {
        .invalid(field, "expected '\(expected.rawValue)', got '\(value.signature.rawValue)'")
    }
}
