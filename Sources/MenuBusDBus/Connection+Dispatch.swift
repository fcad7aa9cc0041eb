import MenuBusSupport

internal import CDBus

extension Connection {
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    package static let properties = "org.freedesktop.DBus.Properties"
    package static let peer = "org.freedesktop.DBus.Peer"

    /// Serves `interfaces` at `path`, replacing what was there.
    package func export(_ path: ObjectPath, _ interfaces: [Interface]) {
        let object = ExportedObject(path: path, interfaces: interfaces)
        object.bindStandardInterfaces(standardInterfaces(for: object))
        objects[path] = object
    }

    package func unexport(_ path: ObjectPath) {
        objects[path] = nil
    }

    /// Serves `interfaces`, declared once, at every path below `prefix`
    /// where `find` says an object lives, as sd-bus's fallback vtables do:
    /// each handler reads which object from the call's path (`MethodCall.path`,
    /// a property's getter `at:`). Any other path below it has no object
    /// (`UnknownObject`). `children` lists the live objects' paths for
    /// introspection. `access`, when given, is asked about every call's
    /// path and sender (Properties included) and may refuse it.
    package func exportSubtree(_ prefix: ObjectPath, _ interfaces: [Interface],
                               find: @escaping (ObjectPath) -> Bool,
                               children: @escaping () -> [ObjectPath],
                               access: ((_ path: ObjectPath, _ sender: String, _ interface: String) -> BusError?)? = nil) {
        let object = ExportedObject(path: prefix, interfaces: interfaces, access: access)
        object.bindStandardInterfaces(standardInterfaces(for: object))
        subtrees.removeAll { $0.object.path == prefix }
        subtrees.append(ExportedSubtree(object: object, find: find, children: children))
    }

    /// The object serving `path`: exported there, or a subtree's that holds it.
    func object(at path: ObjectPath) -> ExportedObject? {
        if let object = objects[path] { return object }
        return subtrees.first { $0.holds(path) }?.object
    }

    /// Emits a declared signal; its arguments must match the declaration.
    package func emit(_ path: ObjectPath, _ interface: String, _ member: String,
              _ arguments: [DBusValue], destination: String? = nil) {
        guard let declaration = object(at: path)?.interface(named: interface)?.signal(named: member) else {
            Log.error("emit of undeclared signal \(interface).\(member) at \(path)")
            return
        }
        let signature = Signature(unchecked: arguments.map(\.signature.rawValue).joined())
        guard signature == declaration.signature else {
            Log.error("signal \(interface).\(member) built as '\(signature)', declared '\(declaration.signature)'")
            return
        }
        do {
            try emitSignal(path: path, interface: interface, member: member, arguments: arguments, destination: destination)
        } catch {
            Log.error("cannot emit \(interface).\(member): \(error)")
        }
    }

    /// Emits `PropertiesChanged` for `names`, values or invalidations as
    /// declared: to `destinations` alone when given, else to all.
    package func propertiesChanged(_ path: ObjectPath, _ interface: String, _ names: [String],
                                   destinations: [String]? = nil) {
        guard let declaration = object(at: path)?.interface(named: interface) else { return }
        var changed: [DBusValue] = []
        var invalidated: [DBusValue] = []
        for name in names {
            guard let property = declaration.property(named: name), property.emitsSignal else { continue }
            if property.emitsValue {
                changed.append(.dictEntry(.string(name), .variant(property.get(path))))
            } else {
                invalidated.append(.string(name))
            }
        }
        for destination in destinations.map({ $0.map(Optional.some) }) ?? [nil] {
            try? emitSignal(FreedesktopAPI.propertiesChanged, at: path, interface, .array("{sv}", changed),
                            .array("s", invalidated), destination: destination)
        }
    }

    func sendReply(to call: MethodCall, _ values: [DBusValue]) {
        let signature = Signature(unchecked: values.map(\.signature.rawValue).joined())
        guard signature == call.outSignature else {
            Log.error("\(call.interface).\(call.member) replied '\(signature)', declared '\(call.outSignature)'")
            sendError(to: call.message, BusError.failed("internal error: reply of the wrong type"))
            return
        }
        guard call.message.expectsReply else { return }
        do {
            try sendMarshalled(call.message.returnHeader, values)
        } catch let error as BusError {
            sendError(to: call.message, error)
        } catch {
            sendError(to: call.message, BusError.failed("\(error)"))
        }
    }

    func sendError(to message: Message, _ error: BusError) {
        guard message.expectsReply, let reply = message.makeError(error) else { return }
        send(reply)
    }

    /// Finds the object, interface and method; checks the signature; runs the handler.
    func dispatchMethodCall(_ message: Message) {
        guard let member = message.member, let pathText = message.path else { return }
        let path = ObjectPath(stringLiteral: pathText)
        guard let object = object(at: path) else {
            if (message.interface == nil || message.interface == Connection.introspectable), member == "Introspect",
               !childNodes(of: path).isEmpty {
                answer(message, outSignature: "s", [.string(introspectionDocument(for: path, interfaces: []))])
            } else {
                sendError(to: message, BusError(name: BusError.Standard.unknownObject, message: "No object at path \(pathText)"))
            }
            return
        }
        let interfaces = object.allInterfaces
        let found: (Interface, Interface.Method)?
        if let name = message.interface {
            guard let interface = interfaces.first(where: { $0.name == name }) else {
                sendError(to: message, BusError(name: BusError.Standard.unknownInterface,
                                                message: "Object \(pathText) has no interface \(name)"))
                return
            }
            found = interface.method(named: member).map { (interface, $0) }
        } else {
            found = interfaces.lazy.compactMap { i in i.method(named: member).map { (i, $0) } }.first
        }
        guard let (interface, method) = found else {
            sendError(to: message, BusError(name: BusError.Standard.unknownMethod,
                                            message: "No method \(member) in \(message.interface ?? "any interface") at \(pathText)"))
            return
        }
        if let access = object.access, interface.name != Connection.introspectable, interface.name != Connection.peer,
           let refusal = access(path, message.sender ?? "", interface.name) {
            sendError(to: message, refusal)
            return
        }
        let received = message.signature
        guard received == method.inSignature else {
            sendError(to: message, BusError.invalidArgs(
                "\(interface.name).\(member) expects arguments '\(method.inSignature)', got '\(received)'"))
            return
        }
        let size = maxCallBytes.map { message.bodyBytesBeforeDecoding(stoppingAbove: $0) }
        // Decoded (or refused while decoding), a large call's values are freed on return.
        defer { if let size, size >= Connection.largeCallBytes { largeCallHandled?(size) } }
        if let limit = maxCallBytes, let size, size > limit {
            sendError(to: message, BusError.limitExceeded(
                "\(interface.name).\(member): the call holds more than \(limit) bytes, the largest any call may be under menubusd's budgets"))
            return
        }
        let names = method.inputs.map(\.name)
        let arguments: (values: [DBusValue], sizes: [Int])
        do {
            arguments = method.readsBody ? ([], [])
                : try message.arguments(named: names, maxValues: maxCallValues ?? .max)
        } catch let error as BusError {
            sendError(to: message, error)
            return
        } catch {
            sendError(to: message, BusError.failed("\(error)"))
            return
        }
        let call = MethodCall(message: message, sender: message.sender ?? "", path: path, interface: interface.name,
                              member: member, arguments: arguments.values, outSignature: method.outSignature,
                              connection: self)
        call.argumentSizes = arguments.sizes
        call.inputNames = names
        call.maxValues = maxCallValues ?? .max
        do {
            let values = try method.handler(call)
            if !call.isDeferred { sendReply(to: call, values) }
        } catch let error as BusError {
            sendError(to: message, error)
        } catch {
            sendError(to: message, BusError.failed("\(error)"))
        }
    }

    private func answer(_ message: Message, outSignature: Signature, _ values: [DBusValue]) {
        guard message.expectsReply else { return }
        do {
            try sendMarshalled(message.returnHeader, values)
        } catch {
            sendError(to: message, BusError.failed("\(error)"))
        }
    }

    /// Names of the nodes one level below `path` that lead to exported objects.
    func childNodes(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for other in objects.keys + subtrees.flatMap({ $0.children() })
        where other.rawValue.hasPrefix(prefix) && other != path {
            let rest = other.rawValue.dropFirst(prefix.count)
            if let first = rest.split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted { a, b in
            // Numeric children (menu/1, menu/10) in numeric order.
            if let x = Int(a), let y = Int(b) { return x < y }
            return a < b
        }
    }

    func introspectionDocument(for path: ObjectPath, interfaces: [Interface]) -> String {
        Interface.introspectionDocument(interfaces: interfaces, children: childNodes(of: path))
    }

    /// Introspectable, Properties and Peer, bound to `object`.
    private func standardInterfaces(for object: ExportedObject) -> [Interface] {
        var introspectable = Interface(Connection.introspectable)
        introspectable.method(FreedesktopAPI.introspect) { [unowned self, unowned object] call in
            self.introspectionDocument(for: call.path, interfaces: object.allInterfaces)
        }

        var peer = Interface(Connection.peer)
        peer.method(FreedesktopAPI.ping) { _ in }
        peer.method(FreedesktopAPI.getMachineId) { _ in
            guard let id = dbus_get_local_machine_id() else { throw BusError.failed("no machine id") }
            defer { dbus_free(id) }
            return String(cString: id)
        }

        var properties = Interface(Connection.properties)
        properties.method(FreedesktopAPI.get) { [unowned object] call, interfaceName, propertyName in
            try Connection.property(of: object, at: call.path, interfaceName, propertyName).get(call.path)
        }
        properties.method(FreedesktopAPI.getAll) { [unowned object] call, name in
            guard let interface = object.interface(named: name) else {
                if [Connection.introspectable, Connection.properties, Connection.peer].contains(name) {
                    return .array("{sv}", [])
                }
                throw BusError(name: BusError.Standard.unknownInterface, message: "Object \(call.path) has no interface \(name)")
            }
            let entries = interface.properties.map { DBusValue.dictEntry(.string($0.name), .variant($0.get(call.path))) }
            return .array("{sv}", entries)
        }
        properties.method(FreedesktopAPI.set) { [unowned self, unowned object] call, interfaceName, propertyName, value in
            let property = try Connection.property(of: object, at: call.path, interfaceName, propertyName)
            guard let set = property.set else {
                throw BusError(name: BusError.Standard.propertyReadOnly, message: "Property \(property.name) is read-only")
            }
            guard value.signature == property.signature else {
                throw BusError.invalidArgs("Property \(property.name) is of type '\(property.signature)', got '\(value.signature)'")
            }
            try set(value, call)
            self.propertiesChanged(call.path, interfaceName, [property.name])
        }
        properties.signal(FreedesktopAPI.propertiesChanged)
        return [introspectable, properties, peer]
    }

    private static func property(of object: ExportedObject, at path: ObjectPath, _ interfaceName: String,
                                 _ propertyName: String) throws -> Interface.Property {
        guard let interface = object.interface(named: interfaceName) else {
            throw BusError(name: BusError.Standard.unknownInterface, message: "Object \(path) has no interface \(interfaceName)")
        }
        guard let property = interface.property(named: propertyName) else {
            throw BusError(name: BusError.Standard.unknownProperty, message: "Interface \(interfaceName) has no property \(propertyName)")
        }
        return property
    }
}

/// The standard interfaces every exported object serves, declared once for
/// the objects and for callers.
package enum FreedesktopAPI {
    package static let introspect = declareMethod(
        Connection.introspectable, "Introspect", out: arg("xml_data", String.self))
    package static let ping = declareMethod(Connection.peer, "Ping")
    package static let getMachineId = declareMethod(Connection.peer, "GetMachineId", out: arg("machine_uuid", String.self))
    package static let get = declareMethod(
        Connection.properties, "Get", in: arg("interface_name", String.self), arg("property_name", String.self),
        out: arg("value", DBusValue.self))
    /// The values in the order the interface declares its properties.
    package static let getAll = declareMethod(
        Connection.properties, "GetAll", in: arg("interface_name", String.self),
        out: arg("properties", signature: "a{sv}"))
    package static let set = declareMethod(
        Connection.properties, "Set",
        in: arg("interface_name", String.self), arg("property_name", String.self), arg("value", DBusValue.self))
    package static let propertiesChanged = declareSignal(
        Connection.properties, "PropertiesChanged", arg("interface_name", String.self),
        arg("changed_properties", signature: "a{sv}"), arg("invalidated_properties", signature: "as"))
}
