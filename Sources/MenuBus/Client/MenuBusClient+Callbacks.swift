import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

extension MenuBusClient {
    /// `org.menubus.MenuBus1.Client`, served at the path given to `register`.
    package func clientInterface() -> Interface {
        var client = Interface(MenuBusNames.clientInterface)
        client.method("ActionInvoked", in: [arg("contextId", String.self), arg("itemId", String.self),
                                            arg("platformData", [String: DBusValue].self)]) { [weak self] call in
            try self?.checkFromDaemon(call)
            let invocation = ActionInvocation(contextId: try call.argument(0), itemId: try call.argument(1),
                                              platformData: try call.argument(2))
            if let self, let later = self.onActionLater {
                later(invocation, CallReply(call.deferReply(), loop: self.loop))
                return []
            }
            self?.onAction?(invocation)
            return []
        }
        client.method("PerformCommand", in: [arg("contextId", String.self), arg("command", String.self),
                                             arg("arguments", [String: DBusValue].self)]) { [weak self] call in
            try self?.checkFromDaemon(call)
            let invocation = CommandInvocation(contextId: try call.argument(0), name: try call.argument(1),
                                               arguments: try call.argument(2))
            if let self, let later = self.onCommandLater {
                later(invocation, CallReply(call.deferReply(), loop: self.loop))
                return []
            }
            self?.onCommand?(invocation)
            return []
        }
        client.method("MenuPresented", in: [arg("contextId", String.self), arg("kind", String.self),
                                            arg("menu", ObjectPath.self)]) { [weak self] call in
            try self?.checkFromDaemon(call)
            let kind: String = try call.argument(1)
            let path: ObjectPath = try call.argument(2)
            if let menuKind = MenuKind(rawValue: kind) { self?.onMenuPresented?(try call.argument(0), menuKind, path.rawValue) }
            return []
        }
        client.method("ProvideElements", in: [arg("contextId", String.self), arg("elementId", String.self)],
                      out: [arg("elements", signature: "a(ssa{sv})")]) { [weak self] call in
            try self?.checkFromDaemon(call)
            if let self, let later = self.provideElementsLater {
                later(try call.argument(0), try call.argument(1), DeferredReply(call.deferReply(), loop: self.loop))
                return []
            }
            guard let provide = self?.provideElements else {
                throw BusError(.noSuchItem, "this app provides no deferred elements")
            }
            return [Wire.encode(try provide(try call.argument(0), try call.argument(1)))]
        }
        client.method("GetSelectedText", in: [arg("contextId", String.self)], out: [arg("text", String.self)]) {
            [weak self] call in
            try self?.checkFromDaemon(call)
            guard let selectedText = self?.selectedText else {
                throw BusError(.noSuchContext, "this app does not share its selected text")
            }
            return [.string(try selectedText(try call.argument(0)))]
        }
        return client
    }
}
