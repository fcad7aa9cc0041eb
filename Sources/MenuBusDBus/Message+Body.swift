internal import CDBus

/// `MessageReader` over libdbus's messages: the codec reads bytes, and a
/// message's bytes are libdbus's to hand out.
extension MessageReader {
    /// The arguments of `message`, in order. A failure names the argument it
    /// was in, by its name in `names` when the caller gives them. More than
    /// `maxValues` values (every value and container counts one; a byte
    /// array one) is `LimitExceeded`: decoded values take some 30 times
    /// their marshalled bytes, so a call's byte limit alone would let one
    /// call of a few MiB take hundreds.
    static func arguments(of message: Message, names: [String] = [], maxValues: Int = .max) throws -> [DBusValue] {
        try argumentsAndSizes(of: message, names: names, maxValues: maxValues).values
    }

    /// `arguments`, with the bytes each takes as `DBusValue.validate`
    /// counts them.
    static func argumentsAndSizes(of message: Message, names: [String] = [],
                                  maxValues: Int = .max) throws -> (values: [DBusValue], sizes: [Int]) {
        let signature = Array(message.signature.rawValue.utf8)
        guard !signature.isEmpty else { return ([], []) }
        return try withBody(of: message, maxValues: maxValues) { reader in
            try reader.readArguments(signature, names: names)
        }
    }

    /// Runs `body` with a reader at the start of `message`'s body, which
    /// lives only as long as the call (a copy libdbus makes of the message).
    static func withBody<Result>(of message: Message, maxValues: Int,
                                 _ body: (inout MessageReader) throws -> Result) throws -> Result {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message.raw, &buffer, &length) != 0, let buffer else {
            throw BusError(name: BusError.Standard.noMemory, message: "out of memory")
        }
        defer { dbus_free(buffer) }
        return try withBody(ofMarshalled: UnsafeRawBufferPointer(start: buffer, count: Int(length)),
                            maxValues: maxValues, body)
    }
}

extension Message {
    /// Runs `read` over this message's body (which lives only as long as
    /// the call), at most `maxValues` values read.
    func withBodyCursor<Result>(maxValues: Int, _ read: (inout BodyCursor) throws -> Result) throws -> Result {
        try MessageReader.withBody(of: self, maxValues: maxValues) { reader in
            var cursor = BodyCursor(reader)
            return try read(&cursor)
        }
    }
}
