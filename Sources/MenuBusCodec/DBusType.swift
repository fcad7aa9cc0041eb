/// A Swift type that carries its D-Bus signature and converts to and from
/// `DBusValue`. Arrays and dicts of such types conform too, so an empty
/// `[String]` still marshals as `as`.
package protocol DBusType: SendableMetatype {
    static var dbusSignature: Signature { get }
    var dbusValue: DBusValue { get }
    /// Throws `InvalidArgs` when `value` is not of this type.
    init(dbusValue value: DBusValue) throws
}

/// A type allowed as a dict key.
package protocol DBusBasicType: DBusType, Hashable {}

extension DBusType {
    package static func mismatch(_ value: DBusValue) -> BusError {
        BusError.invalidArgs("expected '\(dbusSignature.rawValue)', got '\(value.signature.rawValue)'")
    }
}

extension UInt8: DBusBasicType {
    package static var dbusSignature: Signature { "y" }
    package var dbusValue: DBusValue { .byte(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .byte(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Bool: DBusBasicType {
    package static var dbusSignature: Signature { "b" }
    package var dbusValue: DBusValue { .boolean(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .boolean(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Int16: DBusBasicType {
    package static var dbusSignature: Signature { "n" }
    package var dbusValue: DBusValue { .int16(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .int16(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension UInt16: DBusBasicType {
    package static var dbusSignature: Signature { "q" }
    package var dbusValue: DBusValue { .uint16(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .uint16(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Int32: DBusBasicType {
    package static var dbusSignature: Signature { "i" }
    package var dbusValue: DBusValue { .int32(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .int32(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension UInt32: DBusBasicType {
    package static var dbusSignature: Signature { "u" }
    package var dbusValue: DBusValue { .uint32(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .uint32(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Int64: DBusBasicType {
    package static var dbusSignature: Signature { "x" }
    package var dbusValue: DBusValue { .int64(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .int64(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension UInt64: DBusBasicType {
    package static var dbusSignature: Signature { "t" }
    package var dbusValue: DBusValue { .uint64(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .uint64(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Double: DBusBasicType {
    package static var dbusSignature: Signature { "d" }
    package var dbusValue: DBusValue { .double(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .double(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension String: DBusBasicType {
    package static var dbusSignature: Signature { "s" }
    package var dbusValue: DBusValue { .string(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .string(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension ObjectPath: DBusBasicType {
    package static var dbusSignature: Signature { "o" }
    package var dbusValue: DBusValue { .objectPath(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .objectPath(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Signature: DBusBasicType {
    package static var dbusSignature: Signature { "g" }
    package var dbusValue: DBusValue { .signature(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .signature(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

/// `DBusValue` itself stands for "any value in a variant" (`v`).
extension DBusValue: DBusType {
    package static var dbusSignature: Signature { "v" }
    package var dbusValue: DBusValue { .variant(self) }
    package init(dbusValue value: DBusValue) throws {
        guard case .variant(let inner) = value else { throw Self.mismatch(value) }
        self = inner
    }
}

extension Array: DBusType where Element: DBusType {
    package static var dbusSignature: Signature { "a" + Element.dbusSignature }

    package var dbusValue: DBusValue {
        // Byte arrays stay one buffer. With Element known to be UInt8 the
        // bit cast is the identity; `as? [UInt8]` would convert element by
        // element (a 1 MiB undo payload took milliseconds of the loop).
        if Element.self == UInt8.self { return .bytes(unsafeBitCast(self, to: [UInt8].self)) }
        return .array(Element.dbusSignature, map(\.dbusValue))
    }

    package init(dbusValue value: DBusValue) throws {
        switch value {
        case .bytes(let bytes) where Element.self == UInt8.self:
            // The identity, as in `dbusValue`: no copy, no per-byte cast.
            self = unsafeBitCast(bytes, to: [Element].self)
        case .array(let element, let items) where element == Element.dbusSignature:
            self = try items.map(Element.init(dbusValue:))
        default:
            throw Self.mismatch(value)
        }
    }
}

extension Dictionary: DBusType where Key: DBusBasicType, Value: DBusType {
    package static var dbusSignature: Signature {
        Signature(unchecked: "a{" + Key.dbusSignature.rawValue + Value.dbusSignature.rawValue + "}")
    }

    package var dbusValue: DBusValue {
        let entries = map { DBusValue.dictEntry($0.key.dbusValue, $0.value.dbusValue) }
        return .array(Signature(unchecked: "{" + Key.dbusSignature.rawValue + Value.dbusSignature.rawValue + "}"), entries)
    }

    /// A repeated key keeps the last value, as GLib and libdbus consumers do.
    package init(dbusValue value: DBusValue) throws {
        guard value.signature == Self.dbusSignature, let entries = value.dictEntries else {
            throw Self.mismatch(value)
        }
        var result: [Key: Value] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries {
            result[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value)
        }
        self = result
    }
}
