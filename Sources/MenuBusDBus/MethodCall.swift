/// An incoming method call whose signature already matched its declaration.
package final class MethodCall {
    package let message: Message
    package let sender: String
    package let path: ObjectPath
    package let interface: String
    package let member: String
    package let arguments: [DBusValue]
    /// The bytes each argument takes as `DBusValue.validate` counts them,
    /// counted while they were read off the wire (empty when the call was
    /// not read from a message).
    package internal(set) var argumentSizes: [Int] = []
    /// The declared argument names and the most values the call may
    /// decode into, for a handler that reads the body itself.
    var inputNames: [String] = []
    var maxValues = Int.max
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

    /// `argumentSizes[index]`, else the count over `arguments[index]`.
    package func argumentSize(_ index: Int) -> Int {
        if argumentSizes.indices.contains(index) { return argumentSizes[index] }
        guard arguments.indices.contains(index) else { return 0 }
        return (try? arguments[index].validate(checking: false)) ?? 0
    }

    /// Reads the body in place with `read` (a handler declared with
    /// `Interface.methodReadingBody`), the call's limit on values applying.
    /// The body lives only during `read`: what it returns must not hold the
    /// cursor or the byte spans it gave out.
    package func readBody<Result>(_ read: (inout BodyCursor) throws -> Result) throws -> Result {
        try message.withBodyCursor(maxValues: maxValues, read)
    }

    /// The arguments as values with their sizes, read as dispatch reads
    /// them for other methods: what a handler reading the body itself
    /// falls back on (a failure names the argument).
    package func decodedArguments() throws -> (values: [DBusValue], sizes: [Int]) {
        try message.arguments(named: inputNames, maxValues: maxValues)
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
