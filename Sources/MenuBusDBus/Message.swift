#if canImport(Glibc)
import Glibc
#endif
internal import CDBus

/// A D-Bus message with exactly one Swift owner of its libdbus reference.
package final class Message {
    package typealias Kind = MessageKind

    /// Replaced only by `append`, which marshals the message again.
    package private(set) var raw: OpaquePointer
    /// The most a message body may hold: below D-Bus's 64 MiB array limit.
    package static let maxBodyBytes = 60 << 20
    /// Marshalled messages past this size are also counted by `checkedBody`
    /// before they are loaded (only such a body can come near `maxBodyBytes`).
    static let checkedAboveBytes = 1 << 20

    /// Takes over a reference the caller already holds.
    package init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference to a message libdbus lends us (a filter's argument).
    package init(borrowing raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit {
        dbus_message_unref(raw)
    }

    package var kind: Kind? { Kind(rawValue: dbus_message_get_type(raw)) }
    package var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    package var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    package var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    package var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    package var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    package var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    package var serial: UInt32 { dbus_message_get_serial(raw) }
    package var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    package var signature: Signature { Signature(unchecked: dbus_message_get_signature(raw).map { String(cString: $0) } ?? "") }
    var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }

    /// The arguments, decoded. libdbus has validated everything that came off
    /// the wire, so this only fails on types MenuBus does not speak (unix fds).
    package func arguments() throws -> [DBusValue] {
        try MessageReader.arguments(of: self)
    }

    /// The arguments, decoded; a failure names the argument by `names`
    /// (a method's declared argument names).
    /// With the bytes each argument takes, as `DBusValue.validate` counts them.
    func arguments(named names: [String], maxValues: Int = .max) throws -> (values: [DBusValue], sizes: [Int]) {
        try MessageReader.argumentsAndSizes(of: self, names: names, maxValues: maxValues)
    }

    /// About the bytes the body holds, from the lengths of its arrays and
    /// strings (whose contents are not read): how big a call is before it
    /// is decoded, so an oversized one costs little to refuse. Variants,
    /// structs and dict entries are walked into at every depth, so no array
    /// hides from the count inside them. `MessageReader.countBytes` counts.
    var bodyBytesBeforeDecoding: Int { bodyBytesBeforeDecoding(stoppingAbove: .max) }

    /// As `bodyBytesBeforeDecoding`, but the walk stops as soon as the count
    /// passes `limit` (then the answer is only known to be above it). Every
    /// value walked counts at least one byte, so a refused call costs at
    /// most `limit` steps, and an accepted one no more than it holds.
    func bodyBytesBeforeDecoding(stoppingAbove limit: Int) -> Int {
        let signature = Array(self.signature.rawValue.utf8)
        guard !signature.isEmpty else { return 0 }
        // libdbus checked the body against its signature; a body that did
        // not add up would be refused when it is decoded.
        return (try? MessageReader.withBody(of: self, maxValues: .max) { reader in
            try signature.withUnsafeBytes { signature in
                var total = 0
                var position = 0
                while position < signature.count, total <= limit {
                    try reader.countBytes(signature, &position, into: &total, limit: limit)
                }
                return total
            }
        }) ?? 0
    }

    /// The body as marshalled, after its byte-order mark: two messages with
    /// equal signatures and equal `body` read the same values. Lets a reader
    /// skip reading a reply it has read before. Nil if libdbus cannot
    /// marshal it or the header does not add up.
    package var body: [UInt8]? {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &buffer, &length) != 0, let buffer else { return nil }
        defer { dbus_free(buffer) }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(length))
        guard bytes.count >= 16 else { return nil }
        // Fixed header: byte order, type, flags, version, body length (u32).
        let little = bytes[0] == UInt8(ascii: "l")
        var bodyLength = 0
        for offset in 0..<4 {
            let byte = Int(bytes[4 + (little ? offset : 3 - offset)])
            bodyLength |= byte << (8 * offset)
        }
        guard bodyLength <= bytes.count - 16 else { return nil }
        var result = [UInt8]()
        result.reserveCapacity(bodyLength + 1)
        result.append(bytes[0])
        result.append(contentsOf: bytes[(bytes.count - bodyLength)...])
        return result
    }

    /// Appends `values` to the body: the message is marshalled again, its
    /// header fields and arguments followed by `values`
    /// (`Message.marshalled`), and refused as that refuses, unchanged.
    package func append(_ values: [DBusValue]) throws {
        let rebuilt = try Message.marshalled(header, try arguments() + values)
        swap(&raw, &rebuilt.raw)  // `rebuilt` now owns the old message, and frees it
    }

    /// This message's header fields, for marshalling it again.
    var header: MessageMarshaller.Header {
        .init(kind: kind ?? .methodCall, noReplyExpected: !expectsReply, noAutoStart: dbus_message_get_auto_start(raw) == 0,
              path: path, interface: interface, member: member, errorName: errorName,
              replySerial: replySerial == 0 ? nil : replySerial, destination: destination, sender: sender)
    }

    /// The signature and about the size of a body of `values`, once every
    /// value is checked (`DBusValue.validate`) and the whole is within what
    /// D-Bus carries.
    static func checkedBody(_ values: [DBusValue]) throws -> (signature: String, size: Int) {
        var signature = ""
        var size = 0
        for value in values {
            size += try value.validate()
            signature += value.signature.rawValue
            guard signature.utf8.count <= 255 else {
                throw BusError.invalidArgs("the arguments' signature is longer than 255 bytes")
            }
        }
        guard Signature.completeTypes(in: signature) != nil else {
            throw BusError.invalidArgs("the arguments' signature nests arrays or structs deeper than the 32 levels D-Bus allows")
        }
        // D-Bus carries at most 64 MiB in one array and 128 MiB in a message;
        // a bus drops a connection that sends more, so refuse it here.
        guard size <= Message.maxBodyBytes else {
            throw BusError.limitExceeded("the message would hold \(size) bytes, more than the \(Message.maxBodyBytes) D-Bus carries")
        }
        return (signature, size)
    }

    /// A message with `header`'s fields and `values` as its body,
    /// marshalled in Swift (`MessageMarshaller`, MenuBus's one writer) and
    /// taken in by libdbus's loader, which checks names, strings without
    /// NUL, signatures and nesting as it checks a received message and never
    /// aborts; the marshaller holds array items to their type. When either
    /// refuses, `checkedBody` and the name checks run to name what was
    /// refused. The serial is left for the connection to set as it sends it.
    static func marshalled(_ header: MessageMarshaller.Header, _ values: [DBusValue]) throws -> Message {
        try marshalledCounting(header, values).message
    }

    /// `marshalled`, with the message's size on the wire (header and body).
    static func marshalledCounting(_ header: MessageMarshaller.Header,
                                   _ values: [DBusValue]) throws -> (message: Message, bytes: Int) {
        var signature = ""
        for value in values { signature += value.signature.rawValue }
        guard signature.utf8.count <= 255 else { try refused(header, values) }
        let bytes: [UInt8]
        do throws(MessageMarshaller.Refusal) {
            bytes = try MessageMarshaller.message(header, signature: signature, values: values)
        } catch .tooLarge {
            try refused(header, values, BusError.limitExceeded(
                "the message would be more than the \(MessageMarshaller.maxBytes) bytes D-Bus carries"))
        } catch {
            try refused(header, values)
        }
        // What D-Bus carries is counted as `checkedBody` counts it, so a
        // large body is refused with the same figures whatever its padding.
        if bytes.count > Message.checkedAboveBytes { _ = try checkedBody(values) }
        do {
            let message = try bytes.withUnsafeBytes { try Message(marshalled: $0) }
            dbus_message_set_serial(message.raw, 0)
            return (message, bytes.count)
        } catch {
            try refused(header, values, error)
        }
    }

    /// Throws what `checkedBody` says of `values` (or the name checks of
    /// `header`'s names), else `error`.
    private static func refused(_ header: MessageMarshaller.Header, _ values: [DBusValue],
                                _ error: Error = BusError.invalidArgs("an array holds a value of another type than its signature says")) throws -> Never {
        try Names.check(path: header.path, interface: header.interface, member: header.member,
                        destination: header.destination)
        _ = try checkedBody(values)
        throw error
    }

    /// This message as bytes on the wire and back through libdbus's loader,
    /// which checks everything a receiving peer or bus would. Tests use it to
    /// prove what `append` lets through is what D-Bus accepts.
    func throughTheWire() throws -> Message {
        if serial == 0 { dbus_message_set_serial(raw, 1) }
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &bytes, &length) != 0, let bytes else {
            throw BusError(name: BusError.Standard.noMemory, message: "out of memory while marshalling")
        }
        defer { dbus_free(bytes) }
        return try Message(marshalled: UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }

    /// A message from its bytes on the wire, checked by libdbus's loader as
    /// a received one is (tests feed it messages other peers would send).
    package convenience init(marshalled bytes: UnsafeRawBufferPointer) throws {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let start = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        guard let loaded = dbus_message_demarshal(start, Int32(clamping: bytes.count), &error) else {
            if let name = error.name, String(cString: name) == BusError.Standard.noMemory {
                throw BusError(name: BusError.Standard.noMemory, message: "out of memory")
            }
            let text = error.message.map { String(cString: $0) } ?? "refused"
            throw BusError(name: BusError.Standard.invalidArgs, message: "libdbus refused the message: \(text)")
        }
        self.init(owning: loaded)
    }

    /// A method call, marshalled with its `arguments` (`marshalled`);
    /// `noReply` asks the callee not to answer.
    package static func methodCall(destination: String?, path: ObjectPath, interface: String?, member: String,
                                   arguments: [DBusValue] = [], noReply: Bool = false) throws -> Message {
        try marshalled(.init(kind: .methodCall, noReplyExpected: noReply, path: path.rawValue, interface: interface,
                             member: member, destination: destination), arguments)
    }

    /// A method return built by hand, for `replySerial` of another
    /// connection's call: what any peer can send (tests forge replies with it).
    package static func methodReturn(replySerial: UInt32, destination: String) throws -> Message {
        try marshalled(.init(kind: .methodReturn, replySerial: replySerial, destination: destination), [])
    }

    /// The header of the reply to this call, addressed to its sender (none
    /// on a peer-to-peer connection), as libdbus addresses one.
    var returnHeader: MessageMarshaller.Header {
        .init(kind: .methodReturn, replySerial: serial, destination: sender)
    }

    /// The error reply to this call, carrying `error` (an invalid name is
    /// sent as `Failed`).
    func makeError(_ error: BusError) -> Message? {
        let name = Names.isValidErrorName(error.name) ? error.name : BusError.Standard.failed
        let text = error.message.replacing("\0", with: " ")
        return try? Message.marshalled(.init(kind: .error, errorName: name, replySerial: serial, destination: sender),
                                       [.string(text)])
    }

    /// The error this message carries, when it is an error reply.
    var asError: BusError? {
        guard kind == .error else { return nil }
        let text: String
        if let first = try? arguments().first, case .string(let message) = first {
            text = message
        } else {
            text = ""
        }
        return BusError(name: errorName ?? BusError.Standard.failed, message: text)
    }
}
