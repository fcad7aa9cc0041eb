/// One D-Bus interface, declared once. From the declaration the connection
/// derives dispatch, argument-signature checks, reply-signature checks,
/// `org.freedesktop.DBus.Properties` and introspection XML.
package struct Interface {
    package struct Argument: ArgumentDescribing, Sendable {
        package let name: String
        package let signature: Signature
    }

    package struct Method {
        package let name: String
        package let inputs: [Argument]
        let outputs: [Argument]
        let inSignature: Signature
        let outSignature: Signature
        package let handler: (MethodCall) throws -> [DBusValue]
        /// The handler reads the call's body itself (`MethodCall.readBody`):
        /// dispatch decodes no arguments before it.
        var readsBody = false
    }

    package struct SignalDeclaration {
        package let name: String
        package let arguments: [Argument]
        package let signature: Signature
    }

    package enum Access: String {
        case read, readwrite
    }

    package struct Property {
        package let name: String
        package let signature: Signature
        package let access: Access
        /// The value at an object's path (one object's for most; a
        /// subtree's objects each have theirs).
        package let get: (ObjectPath) -> DBusValue
        package let set: ((DBusValue, MethodCall) throws -> Void)?
        /// Whether `PropertiesChanged` carries the new value (true) or only
        /// invalidates it (false), as `org.freedesktop.DBus.Property.EmitsChangedSignal`.
        package let emitsValue: Bool
        /// False: the value changes without any `PropertiesChanged`
        /// (`EmitsChangedSignal` "false"); a proxy must read it again.
        package var emitsSignal = true
    }

    package let name: String
    package private(set) var methods: [Method] = []
    package private(set) var signals: [SignalDeclaration] = []
    package private(set) var properties: [Property] = []

    package init(_ name: String) {
        self.name = name
    }

    package func method(named member: String) -> Method? {
        methods.first { $0.name == member }
    }

    package func signal(named member: String) -> SignalDeclaration? {
        signals.first { $0.name == member }
    }

    package func property(named property: String) -> Property? {
        properties.first { $0.name == property }
    }

    /// Declares a method. `handler` runs only after the call's signature
    /// equals the inputs' signature; what it returns must match the outputs.
    /// (A shared `DeclaredMethod` gives a typed handler: Interface+Typed.swift.)
    package mutating func method(
        _ name: String, in inputs: [any ArgumentDescribing] = [], out outputs: [any ArgumentDescribing] = [],
        _ handler: @escaping (MethodCall) throws -> [DBusValue]
    ) {
        addMethod(name, inputs.map(\.argument), outputs.map(\.argument), handler)
    }

    mutating func addMethod(_ name: String, _ inputs: [Argument], _ outputs: [Argument], readsBody: Bool = false,
                            _ handler: @escaping (MethodCall) throws -> [DBusValue]) {
        methods.append(Method(
            name: name, inputs: inputs, outputs: outputs,
            inSignature: Signature(unchecked: inputs.map(\.signature.rawValue).joined()),
            outSignature: Signature(unchecked: outputs.map(\.signature.rawValue).joined()),
            handler: handler, readsBody: readsBody))
    }

    package mutating func signal(_ name: String, _ arguments: [any ArgumentDescribing] = []) {
        addSignal(name, arguments.map(\.argument))
    }

    mutating func addSignal(_ name: String, _ arguments: [Argument]) {
        signals.append(SignalDeclaration(
            name: name, arguments: arguments,
            signature: Signature(unchecked: arguments.map(\.signature.rawValue).joined())))
    }

    /// Declares a read-only property of type `T`.
    package mutating func property<T: DBusType>(_ name: String, _ type: T.Type, emitsValue: Bool = true, get: @escaping () -> T) {
        properties.append(Property(
            name: name, signature: T.dbusSignature, access: .read,
            get: { _ in get().dbusValue }, set: nil, emitsValue: emitsValue))
    }

    /// Declares a read-only property of type `T` whose value depends on
    /// the object's path, for a subtree's objects (`Connection.exportSubtree`).
    package mutating func property<T: DBusType>(_ name: String, _ type: T.Type, emitsValue: Bool = true,
                                               at get: @escaping (ObjectPath) -> T) {
        properties.append(Property(
            name: name, signature: T.dbusSignature, access: .read,
            get: { get($0).dbusValue }, set: nil, emitsValue: emitsValue))
    }

    /// Declares a read-only property by signature, for values built as `DBusValue`
    /// (an `a{sv}` whose keys should keep their order, for one).
    package mutating func property(_ name: String, signature: Signature, emitsValue: Bool = true, emitsSignal: Bool = true,
                           get: @escaping () -> DBusValue) {
        property(name, signature: signature, emitsValue: emitsValue, emitsSignal: emitsSignal, at: { _ in get() })
    }

    /// Declares a read-only property by signature whose value depends on
    /// the object's path, for a subtree's objects (`Connection.exportSubtree`).
    package mutating func property(_ name: String, signature: Signature, emitsValue: Bool = true, emitsSignal: Bool = true,
                                   at get: @escaping (ObjectPath) -> DBusValue) {
        properties.append(Property(
            name: name, signature: signature, access: .read, get: get, set: nil, emitsValue: emitsValue,
            emitsSignal: emitsSignal))
    }

    /// Declares a read-write property of type `T`; `set` may throw to refuse.
    package mutating func property<T: DBusType>(
        _ name: String, _ type: T.Type, emitsValue: Bool = true,
        get: @escaping () -> T, set: @escaping (T, MethodCall) throws -> Void
    ) {
        properties.append(Property(
            name: name, signature: T.dbusSignature, access: .readwrite,
            get: { _ in get().dbusValue },
            set: { value, call in try set(T(dbusValue: value), call) },
            emitsValue: emitsValue))
    }
}

