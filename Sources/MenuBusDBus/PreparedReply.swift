import MenuBusSupport

internal import CDBus

/// A method reply marshalled once and copied for every caller: for big
/// replies that stay the same across many calls (a menu layout per revision).
/// libdbus spends most of a large reply's cost building nested variants;
/// a copy is a memcpy.
package final class PreparedReply {
    package let signature: Signature
    private let template: Message

    /// Marshals `values` into a template reply; throws if they are invalid.
    package init(_ values: [DBusValue]) throws {
        guard let raw = dbus_message_new(Message.Kind.methodReturn.rawValue) else {
            throw BusError(name: BusError.Standard.noMemory, message: "out of memory")
        }
        template = Message(owning: raw)
        try template.append(values)
        signature = template.signature
    }

    /// The reply's size when marshalled (header and body), measured on a
    /// throwaway copy (marshalling locks a message) the first time it is
    /// asked, for caches that budget bytes. `Int.max` if it cannot be told.
    package private(set) lazy var marshalledBytes: Int = {
        guard let copy = dbus_message_copy(template.raw) else { return Int.max }
        defer { dbus_message_unref(copy) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(copy, &buffer, &length) != 0 else { return Int.max }
        dbus_free(buffer)
        return Int(length)
    }()

    /// A copy addressed as the reply to `call`.
    package func reply(to call: Message) -> Message? {
        guard let copy = dbus_message_copy(template.raw) else { return nil }
        let reply = Message(owning: copy)
        guard dbus_message_set_reply_serial(copy, call.serial) != 0 else { return nil }
        if let sender = call.sender, dbus_message_set_destination(copy, sender) == 0 { return nil }
        return reply
    }
}

extension MethodCall {
    /// Answers with a prepared reply instead of returning values.
    package func reply(with prepared: PreparedReply) {
        isDeferredByPreparedReply()
        guard let connection else { return }
        guard prepared.signature == outSignature else {
            Log.error("\(interface).\(member) prepared '\(prepared.signature)', declared '\(outSignature)'")
            connection.sendError(to: message, BusError.failed("internal error: reply of the wrong type"))
            return
        }
        guard message.expectsReply else { return }
        if let reply = prepared.reply(to: message) {
            connection.send(reply)
        } else {
            connection.sendError(to: message, BusError(name: BusError.Standard.noMemory, message: "out of memory"))
        }
    }
}
