/// D-Bus's rules for names, checked in Swift: libdbus aborts on an invalid
/// name, and the codec does not link libdbus. Each rule is the D-Bus
/// specification's, as libdbus's `dbus_validate_*` apply it (a test holds
/// them to libdbus's over many names).
package enum Names {
    package static func check(path: String?, interface: String?, member: String?, destination: String?) throws {
        if let path, !ObjectPath.isValid(path) { throw BusError.invalidArgs("'\(path)' is not a valid object path") }
        if let interface, !isValidInterface(interface) {
            throw BusError.invalidArgs("'\(interface)' is not a valid interface name")
        }
        if let member, !isValidMember(member) { throw BusError.invalidArgs("'\(member)' is not a valid member name") }
        if let destination, !isValidBusName(destination) {
            throw BusError.invalidArgs("'\(destination)' is not a valid bus name")
        }
    }

    /// Two or more elements joined by dots, each of `[A-Za-z_][A-Za-z0-9_]*`,
    /// at most 255 bytes.
    package static func isValidInterface(_ name: String) -> Bool {
        dotted(name, hyphens: false)
    }

    /// One element of `[A-Za-z_][A-Za-z0-9_]*`, 1 to 255 bytes.
    package static func isValidMember(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= 255, !isDigit(first) else { return false }
        return bytes.allSatisfy { isWordByte($0, hyphen: false) }
    }

    /// A unique name (`:` then `[A-Za-z0-9_-]` bytes, each dot followed by
    /// one of them: libdbus takes `:` alone) or a well-known one (two or
    /// more dot-joined elements of `[A-Za-z_-][A-Za-z0-9_-]*`), 1 to 255 bytes.
    package static func isValidBusName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard bytes.first == UInt8(ascii: ":") else { return dotted(name, hyphens: true) }
        guard bytes.count <= 255 else { return false }
        var afterDot = false
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: ".") {
                guard !afterDot else { return false }
                afterDot = true
            } else {
                guard isWordByte(byte, hyphen: true) else { return false }
                afterDot = false
            }
        }
        return !afterDot
    }

    /// As an interface name.
    package static func isValidErrorName(_ name: String) -> Bool {
        isValidInterface(name)
    }

    /// Two or more elements joined by single dots, each one or more word
    /// bytes (`hyphens` allowing `-`) not starting with a digit, 1 to 255 bytes.
    private static func dotted(_ name: String, hyphens: Bool) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        var elements = 1
        var length = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard length > 0 else { return false }
                elements += 1
                length = 0
                continue
            }
            guard isWordByte(byte, hyphen: hyphens), length > 0 || !isDigit(byte) else { return false }
            length += 1
        }
        return length > 0 && elements >= 2
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isWordByte(_ byte: UInt8, hyphen: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        case UInt8(ascii: "-"): hyphen
        default: false
        }
    }
}
