/// A Swift type that carries its D-Bus signature and converts to and from
/// `DBusValue`. Arrays and dicts of such types conform too, so an empty
/// `[String]` still marshals as `as`.
protocol DBusType {
    static var dbusSignature: Signature { get }
    var dbusValue: DBusValue { get }
    /// Throws `InvalidArgs` when `value` is not of this type.
    init(dbusValue value: DBusValue) throws
}

/// A type allowed as a dict key.
protocol DBusBasicType: DBusType, Hashable {}

extension DBusType {
    static func mismatch(_ value: DBusValue) -> BusError {
        BusError.invalidArgs("expected '\(dbusSignature.rawValue)', got '\(value.signature.rawValue)'")
    }
}

extension UInt8: DBusBasicType {
    static var dbusSignature: Signature { "y" }
    var dbusValue: DBusValue { .byte(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .byte(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Bool: DBusBasicType {
    static var dbusSignature: Signature { "b" }
    var dbusValue: DBusValue { .boolean(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .boolean(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Int16: DBusBasicType {
    static var dbusSignature: Signature { "n" }
    var dbusValue: DBusValue { .int16(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .int16(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension UInt16: DBusBasicType {
    static var dbusSignature: Signature { "q" }
    var dbusValue: DBusValue { .uint16(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .uint16(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Int32: DBusBasicType {
    static var dbusSignature: Signature { "i" }
    var dbusValue: DBusValue { .int32(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .int32(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension UInt32: DBusBasicType {
    static var dbusSignature: Signature { "u" }
    var dbusValue: DBusValue { .uint32(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .uint32(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Int64: DBusBasicType {
    static var dbusSignature: Signature { "x" }
    var dbusValue: DBusValue { .int64(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .int64(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension UInt64: DBusBasicType {
    static var dbusSignature: Signature { "t" }
    var dbusValue: DBusValue { .uint64(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .uint64(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Double: DBusBasicType {
    static var dbusSignature: Signature { "d" }
    var dbusValue: DBusValue { .double(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .double(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension String: DBusBasicType {
    static var dbusSignature: Signature { "s" }
    var dbusValue: DBusValue { .string(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .string(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension ObjectPath: DBusBasicType {
    static var dbusSignature: Signature { "o" }
    var dbusValue: DBusValue { .objectPath(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .objectPath(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

extension Signature: DBusBasicType {
    static var dbusSignature: Signature { "g" }
    var dbusValue: DBusValue { .signature(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .signature(let v) = value else { throw Self.mismatch(value) }
        self = v
    }
}

/// `DBusValue` itself stands for "any value in a variant" (`v`).
extension DBusValue: DBusType {
    static var dbusSignature: Signature { "v" }
    var dbusValue: DBusValue { .variant(self) }
    init(dbusValue value: DBusValue) throws {
        guard case .variant(let inner) = value else { throw Self.mismatch(value) }
        self = inner
    }
}

extension Array: DBusType where Element: DBusType {
    static var dbusSignature: Signature { "a" + Element.dbusSignature }

    var dbusValue: DBusValue {
        // `as? [UInt8]` alone would also match an empty array of any type.
        if Element.self == UInt8.self, let bytes = self as? [UInt8] { return .bytes(bytes) }
        return .array(Element.dbusSignature, map(\.dbusValue))
    }

    init(dbusValue value: DBusValue) throws {
        switch value {
        case .bytes(let bytes) where Element.self == UInt8.self:
            // The cast cannot fail: Element is UInt8.
            self = (bytes as? [Element]) ?? []
        case .array(let element, let items) where element == Element.dbusSignature:
            self = try items.map(Element.init(dbusValue:))
        default:
            throw Self.mismatch(value)
        }
    }
}

extension Dictionary: DBusType where Key: DBusBasicType, Value: DBusType {
    static var dbusSignature: Signature {
        Signature(unchecked: "a{" + Key.dbusSignature.rawValue + Value.dbusSignature.rawValue + "}")
    }

    var dbusValue: DBusValue {
        let entries = map { DBusValue.dictEntry($0.key.dbusValue, $0.value.dbusValue) }
        return .array(Signature(unchecked: "{" + Key.dbusSignature.rawValue + Value.dbusSignature.rawValue + "}"), entries)
    }

    /// A repeated key keeps the last value, as GLib and libdbus consumers do.
    init(dbusValue value: DBusValue) throws {
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
