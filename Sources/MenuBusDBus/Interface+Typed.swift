import MenuBusSupport

/// Typed declarations: a method or signal declared once, as a value, from
/// typed argument descriptors. The server implements a `DeclaredMethod`
/// with a handler that receives its arguments as Swift values and returns
/// its reply as Swift values; a caller calls it with Swift values and gets
/// the reply back typed; a signal is emitted and received through its
/// `DeclaredSignal`. A handler or a call whose types differ from the
/// declaration does not compile. The wire signatures come from the same
/// descriptors, so dispatch, introspection and the calls agree.

/// Something that names an argument and its signature (`Interface.Argument`
/// and the typed `Arg`), for the untyped `Interface.method`.
package protocol ArgumentDescribing {
    var argument: Interface.Argument { get }
}

extension Interface.Argument {
    package var argument: Interface.Argument { self }
}

/// A typed argument: its name, its signature, and how its Swift value
/// crosses the wire.
package struct Arg<Value>: ArgumentDescribing, Sendable {
    package let argument: Interface.Argument
    let decode: @Sendable (DBusValue) throws -> Value
    let encode: @Sendable (Value) -> DBusValue
}

/// `arg("appId", String.self)`: an argument whose signature comes from its Swift type.
package func arg<T: DBusType>(_ name: String, _ type: T.Type) -> Arg<T> {
    Arg(argument: Interface.Argument(name: name, signature: T.dbusSignature),
        decode: { try T(dbusValue: $0) }, encode: { $0.dbusValue })
}

/// An argument given by signature, for shapes no Swift type models (an
/// `a(ssa{sv})` of elements, an `a{sv}` whose fields the handler checks
/// itself and names in its errors): the value passes as it is. The call's
/// or the reply's signature is checked against the declaration as a whole.
package func arg(_ name: String, signature: Signature) -> Arg<DBusValue> {
    Arg(argument: Interface.Argument(name: name, signature: signature),
        decode: { $0 }, encode: { $0 })
}

/// The arguments of a method's call or reply, or of a signal, in order.
package struct ArgumentList<each Value>: Sendable {
    package let arguments: [Interface.Argument]
    /// All of them, as one signature (`soa{sv}`).
    package let signature: Signature
    let decodeValues: @Sendable ([DBusValue]) throws -> (repeat each Value)
    let encodeValues: @Sendable (repeat each Value) -> [DBusValue]

    package init(_ descriptors: repeat Arg<each Value>) {
        var arguments: [Interface.Argument] = []
        for descriptor in repeat each descriptors { arguments.append(descriptor.argument) }
        self.arguments = arguments
        signature = Signature(unchecked: arguments.map(\.signature.rawValue).joined())
        let count = arguments.count
        decodeValues = { values in
            guard values.count == count else {
                throw BusError.invalidArgs("expected \(count) arguments, got \(values.count)")
            }
            var index = 0
            func next<T>(_ descriptor: Arg<T>) throws -> T {
                defer { index += 1 }
                return try descriptor.decode(values[index])
            }
            return (repeat try next(each descriptors))
        }
        encodeValues = { (values: repeat each Value) in
            var encoded: [DBusValue] = []
            encoded.reserveCapacity(count)
            func add<T>(_ descriptor: Arg<T>, _ value: T) { encoded.append(descriptor.encode(value)) }
            repeat add(each descriptors, each values)
            return encoded
        }
    }

    /// The Swift values of `values`, whose signature already matched.
    package func decode(_ values: [DBusValue]) throws -> (repeat each Value) {
        try decodeValues(values)
    }

    package func encode(_ values: repeat each Value) -> [DBusValue] {
        encodeValues(repeat each values)
    }

    /// The Swift values of a message's body (a reply, a signal); throws
    /// `InvalidSignature` when its signature is not the declared one.
    package func decode(_ message: Message, member: String) throws -> (repeat each Value) {
        let received = message.signature
        guard received == signature else { throw ArgumentList.mismatch(member, received, signature) }
        return try decodeValues(message.arguments())
    }

    /// `decode(_:member:)` for values already read off a message.
    func decodeChecked(_ values: [DBusValue], member: String) throws -> (repeat each Value) {
        let received = Signature(unchecked: values.map(\.signature.rawValue).joined())
        guard received == signature else { throw ArgumentList.mismatch(member, received, signature) }
        return try decodeValues(values)
    }

    static func mismatch(_ member: String, _ received: Signature, _ declared: Signature) -> BusError {
        BusError(name: BusError.Standard.invalidSignature,
                 message: "\(member) answered '\(received)', declared '\(declared)'")
    }
}

/// A method of an interface, declared once: name, typed inputs and outputs.
package struct DeclaredMethod<Inputs: Sendable, Outputs: Sendable>: Sendable {
    package let interface: String
    package let name: String
    package let inputs: Inputs
    package let outputs: Outputs
}

/// Declares `interface`.`name` with typed `in` and `out` arguments.
package func declareMethod<each In, each Out>(
    _ interface: String, _ name: String, in inputs: repeat Arg<each In>, out outputs: repeat Arg<each Out>
) -> DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>> {
    DeclaredMethod(interface: interface, name: name, inputs: ArgumentList(repeat each inputs),
                   outputs: ArgumentList(repeat each outputs))
}

/// A signal of an interface, declared once: name and typed arguments.
package struct DeclaredSignal<Arguments: Sendable>: Sendable {
    package let interface: String
    package let name: String
    package let arguments: Arguments
}

package func declareSignal<each Value>(
    _ interface: String, _ name: String, _ arguments: repeat Arg<each Value>
) -> DeclaredSignal<ArgumentList<repeat each Value>> {
    DeclaredSignal(interface: interface, name: name, arguments: ArgumentList(repeat each arguments))
}

extension Interface {
    /// Implements a declared method: `handler` gets the call and its
    /// arguments as Swift values and returns the reply's values.
    package mutating func method<each In, each Out>(
        _ declared: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ handler: @escaping (MethodCall, repeat each In) throws -> (repeat each Out)
    ) {
        assert(declared.interface == name, "\(declared.interface).\(declared.name) implemented on \(name)")
        let inputs = declared.inputs, outputs = declared.outputs
        addMethod(declared.name, inputs.arguments, outputs.arguments) { call in
            let arguments = try inputs.decode(call.arguments)
            let reply = try handler(call, repeat each arguments)
            return outputs.encode(repeat each reply)
        }
    }

    /// Implements a declared method whose handler reads the call's body
    /// itself (`MethodCall.readBody`, else `decodedArguments` and
    /// `ArgumentList.decode`): dispatch decodes nothing before it runs.
    package mutating func methodReadingBody<each In, each Out>(
        _ declared: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ handler: @escaping (MethodCall) throws -> (repeat each Out)
    ) {
        assert(declared.interface == name, "\(declared.interface).\(declared.name) implemented on \(name)")
        let outputs = declared.outputs
        addMethod(declared.name, declared.inputs.arguments, outputs.arguments, readsBody: true) { call in
            let reply = try handler(call)
            return outputs.encode(repeat each reply)
        }
    }

    /// Implements a declared method whose handler may answer otherwise: nil
    /// when it replied with a `PreparedReply` (`call.reply(with:)`) or will
    /// answer later (`call.deferReply()`).
    package mutating func deferrableMethod<each In, each Out>(
        _ declared: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ handler: @escaping (MethodCall, repeat each In) throws -> (repeat each Out)?
    ) {
        assert(declared.interface == name, "\(declared.interface).\(declared.name) implemented on \(name)")
        let inputs = declared.inputs, outputs = declared.outputs
        addMethod(declared.name, inputs.arguments, outputs.arguments) { call in
            let arguments = try inputs.decode(call.arguments)
            guard let reply = try handler(call, repeat each arguments) else {
                guard call.isDeferred else {
                    Log.error("\(call.interface).\(call.member) gave no reply and did not defer it")
                    throw BusError.failed("internal error: no reply")
                }
                return []
            }
            return outputs.encode(repeat each reply)
        }
    }

    /// Declares a signal this interface emits.
    package mutating func signal<each Value>(_ declared: DeclaredSignal<ArgumentList<repeat each Value>>) {
        assert(declared.interface == name, "\(declared.interface).\(declared.name) declared on \(name)")
        addSignal(declared.name, declared.arguments.arguments)
    }
}

extension PendingReply {
    /// Answers a deferred call of `method` with its typed reply.
    package func reply<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>, _ values: repeat each Out
    ) {
        reply(method.outputs.encode(repeat each values))
    }
}

extension PreparedReply {
    /// A prepared reply of `method`, from its typed values.
    package convenience init<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>, _ values: repeat each Out
    ) throws {
        try self.init(method.outputs.encode(repeat each values))
    }
}

extension Connection {
    /// Emits a declared signal from the object at `path`, which serves its interface.
    package func emit<each Value>(_ signal: DeclaredSignal<ArgumentList<repeat each Value>>, at path: ObjectPath,
                                  _ values: repeat each Value, destination: String? = nil) {
        emit(path, signal.interface, signal.name, signal.arguments.encode(repeat each values), destination: destination)
    }

    /// Emits a declared signal on `path` whether or not an object is served
    /// there now (an answer about a menu that has closed).
    package func emitSignal<each Value>(_ signal: DeclaredSignal<ArgumentList<repeat each Value>>, at path: ObjectPath,
                                        _ values: repeat each Value, destination: String? = nil) throws {
        try emitSignal(path: path, interface: signal.interface, member: signal.name,
                       arguments: signal.arguments.encode(repeat each values), destination: destination)
    }

    /// Routes a declared signal to `handler` with its values; a signal of
    /// that name whose signature differs is dropped.
    @discardableResult
    package func subscribe<each Value>(
        _ signal: DeclaredSignal<ArgumentList<repeat each Value>>, path: ObjectPath? = nil, sender: String? = nil,
        busSender: String? = nil, argument0: String? = nil, handler: @escaping (Message, repeat each Value) -> Void
    ) -> Int {
        let arguments = signal.arguments, member = signal.name
        return subscribe(interface: signal.interface, member: signal.name, path: path, sender: sender,
                         busSender: busSender, argument0: argument0) { message in
            guard let values = try? arguments.decode(message, member: member) else { return }
            handler(message, repeat each values)
        }
    }

    /// Calls a declared method and blocks until its typed reply.
    package func callBlocking<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        destination: String, path: ObjectPath, _ arguments: repeat each In, timeout: Double = 25
    ) throws -> (repeat each Out) {
        let reply = try callBlockingReply(method, destination: destination, path: path, repeat each arguments, timeout: timeout)
        return try method.outputs.decode(reply, member: method.name)
    }

    /// `callBlocking`, answering the reply message itself (not yet read:
    /// `method.outputs.decode(_:member:)` reads it).
    package func callBlockingReply<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        destination: String, path: ObjectPath, _ arguments: repeat each In, timeout: Double = 25
    ) throws -> Message {
        try callBlockingReply(destination: destination, path: path, interface: method.interface, member: method.name,
                              arguments: method.inputs.encode(repeat each arguments), timeout: timeout)
    }

    /// Calls a declared method without waiting; `completion` gets the typed
    /// reply, the peer's error, `Timeout`, or `InvalidSignature` when the
    /// reply is not of the declared type.
    package func call<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        destination: String, path: ObjectPath, _ arguments: repeat each In, timeout: Double,
        completion: @escaping (Result<(repeat each Out), BusError>) -> Void
    ) {
        let outputs = method.outputs, member = method.name
        call(destination: destination, path: path, interface: method.interface, member: method.name,
             arguments: method.inputs.encode(repeat each arguments), timeout: timeout) { result in
            switch result {
            case .success(let values):
                do {
                    completion(.success(try outputs.decodeChecked(values, member: member)))
                } catch let error as BusError {
                    completion(.failure(error))
                } catch {
                    completion(.failure(BusError.failed("\(error)")))
                }
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    /// Calls a declared method with no reply asked for.
    package func notify<each In, each Out>(
        _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        destination: String, path: ObjectPath, _ arguments: repeat each In
    ) {
        notify(destination: destination, path: path, interface: method.interface, member: method.name,
               arguments: method.inputs.encode(repeat each arguments))
    }
}
