/// An incoming method call whose signature already matched its declaration.
package final class MethodCall {
    package let message: Message
    package let sender: String
    package let path: ObjectPath
    package let interface: String
    package let member: String
    package let arguments: [DBusValue]
    let outSignature: Signature
    package private(set) weak var connection: Connection?
    /// Set by `deferReply()`: the handler's return value is then ignored.
    private(set) var isDeferred = false

    package init(message: Message, sender: String, path: ObjectPath, interface: String, member: String,
         arguments: [DBusValue], outSignature: Signature, connection: Connection) {
        self.message = message
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.outSignature = outSignature
        self.connection = connection
    }

    /// Argument `index` as `T`. The signature check makes a mismatch
    /// impossible for declared arguments, but it still throws, never traps.
    package func argument<T: DBusType>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard arguments.indices.contains(index) else {
            throw BusError.invalidArgs("\(member): missing argument \(index)")
        }
        return try T(dbusValue: arguments[index])
    }

    func isDeferredByPreparedReply() {
        isDeferred = true
    }

    /// Promises a reply later; the returned handle sends it exactly once.
    package func deferReply() -> PendingReply {
        isDeferred = true
        return PendingReply(call: self)
    }
}

/// A reply promised by a handler that answers later.
package final class PendingReply {
    private var call: MethodCall?

    package init(call: MethodCall) {
        self.call = call
    }

    var isAnswered: Bool { call == nil }

    package func reply(_ values: [DBusValue]) {
        guard let call else { return }
        self.call = nil
        call.connection?.sendReply(to: call, values)
    }

    package func fail(_ error: BusError) {
        guard let call else { return }
        self.call = nil
        call.connection?.sendError(to: call.message, error)
    }
}
