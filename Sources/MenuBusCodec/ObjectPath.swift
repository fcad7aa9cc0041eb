/// A D-Bus object path such as `/org/menubus/MenuBus1`.
public struct ObjectPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// Wraps a path literal written in this code base.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// Validates `rawValue` as an object path.
    public init(validating rawValue: String) throws {
        guard ObjectPath.isValid(rawValue) else {
            throw BusError.invalidArgs("'\(rawValue)' is not a valid object path")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// `/`, or `/` followed by non-empty elements of `[A-Za-z0-9_]` joined by `/`.
    package static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousSlash = false
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
                continue
            }
            previousSlash = false
            let ok = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
            if !ok { return false }
        }
        return true
    }

    /// The path with `element` appended.
    package func appending(_ element: String) -> ObjectPath {
        ObjectPath(stringLiteral: rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }
}
