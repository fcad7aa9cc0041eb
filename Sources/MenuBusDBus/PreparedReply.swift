import MenuBusSupport

internal import CDBus

/// A method reply marshalled once and copied for every caller: for big
/// replies that stay the same across many calls (a menu layout per revision).
/// The body is marshalled by `MessageMarshaller` and checked by libdbus's
/// loader once; each caller's copy is libdbus's copy of that message with
/// its reply serial and destination set (header fields, no value written
/// again), which costs a memcpy where marshalling and loading again would
/// check every nested variant once more.
package final class PreparedReply {
    package let signature: Signature
    private let template: Message
    /// The reply's size when marshalled (header and body), as the
    /// marshaller made it, for caches that budget bytes.
    package let marshalledBytes: Int

    /// Marshals `values` into a template reply; throws if they are invalid.
    package init(_ values: [DBusValue]) throws {
        // The loader takes a reply only with a reply serial; each copy gets the caller's.
        (template, marshalledBytes) = try Message.marshalledCounting(.init(kind: .methodReturn, replySerial: 1), values)
        signature = template.signature
    }

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
