import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

extension MenuBusClient {
    /// `org.menubus.MenuBus1.Client`, served at the path given to `register`.
    package func clientInterface() -> Interface {
        var client = Interface(MenuBusNames.clientInterface)
        typealias API = MenuBusAPI.Client
        client.deferrableMethod(API.actionInvoked) { [weak self] call, contextId, itemId, platformData in
            try self?.checkFromDaemon(call)
            let invocation = ActionInvocation(contextId: contextId, itemId: itemId,
                                              platformData: try [String: DBusValue](dbusValue: platformData))
            if let self, let later = self.onActionLater {
                later(invocation, CallReply(call.deferReply(), loop: self.loop))
                return nil
            }
            self?.onAction?(invocation)
            return ()
        }
        client.deferrableMethod(API.performCommand) { [weak self] call, contextId, command, arguments in
            try self?.checkFromDaemon(call)
            let invocation = CommandInvocation(contextId: contextId, name: command,
                                               arguments: try [String: DBusValue](dbusValue: arguments))
            if let self, let later = self.onCommandLater {
                later(invocation, CallReply(call.deferReply(), loop: self.loop))
                return nil
            }
            self?.onCommand?(invocation)
            return ()
        }
        client.method(API.menuPresented) { [weak self] call, contextId, kind, menu in
            try self?.checkFromDaemon(call)
            if let menuKind = MenuKind(rawValue: kind) { self?.onMenuPresented?(contextId, menuKind, menu.rawValue) }
        }
        client.deferrableMethod(API.provideElements) { [weak self] call, contextId, elementId in
            try self?.checkFromDaemon(call)
            if let self, let later = self.provideElementsLater {
                later(contextId, elementId, DeferredReply(call.deferReply(), loop: self.loop))
                return nil
            }
            guard let provide = self?.provideElements else {
                throw BusError(.noSuchItem, "this app provides no deferred elements")
            }
            return Wire.encode(try provide(contextId, elementId))
        }
        client.method(API.getSelectedText) { [weak self] call, contextId in
            try self?.checkFromDaemon(call)
            guard let selectedText = self?.selectedText else {
                throw BusError(.noSuchContext, "this app does not share its selected text")
            }
            return try selectedText(contextId)
        }
        client.method(API.showEditMenu) { [weak self] call, contextId, platformData in
            try self?.checkFromDaemon(call)
            guard let show = self?.onShowEditMenu else {
                throw BusError(name: BusError.Standard.unknownMethod, message: "this app does not show its edit menu on request")
            }
            try show(contextId, try [String: DBusValue](dbusValue: platformData))
        }
        return client
    }
}
