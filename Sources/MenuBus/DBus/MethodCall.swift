/// An incoming method call whose signature already matched its declaration.
final class MethodCall {
    let message: Message
    let sender: String
    let path: ObjectPath
    let interface: String
    let member: String
    let arguments: [DBusValue]
    let outSignature: Signature
    private(set) weak var connection: Connection?
    /// Set by `deferReply()`: the handler's return value is then ignored.
    private(set) var isDeferred = false

    init(message: Message, sender: String, path: ObjectPath, interface: String, member: String,
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
    func argument<T: DBusType>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard arguments.indices.contains(index) else {
            throw BusError.invalidArgs("\(member): missing argument \(index)")
        }
        return try T(dbusValue: arguments[index])
    }

    func isDeferredByPreparedReply() {
        isDeferred = true
    }

    /// Promises a reply later; the returned handle sends it exactly once.
    func deferReply() -> PendingReply {
        isDeferred = true
        return PendingReply(call: self)
    }
}

/// A reply promised by a handler that answers later.
final class PendingReply {
    private var call: MethodCall?

    init(call: MethodCall) {
        self.call = call
    }

    var isAnswered: Bool { call == nil }

    func reply(_ values: [DBusValue]) {
        guard let call else { return }
        self.call = nil
        call.connection?.sendReply(to: call, values)
    }

    func fail(_ error: BusError) {
        guard let call else { return }
        self.call = nil
        call.connection?.sendError(to: call.message, error)
    }
}
