import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The wiring between the components: what one's change means to another
/// (a context changed → its live menus recompose), a connection leaving,
/// and the manager object, whose members each component answers.
extension MenuBusServer {
    /// Tells each component what another's change means to it.
    func wire() {
        contexts.changed = { [unowned self] owner, contextId in
            self.menus.contextChanged(owner: owner, contextId: contextId)
        }
        contexts.removed = { [unowned self] owner, contextId in
            self.composer.contextRemoved(owner: owner, contextId: contextId)
            self.menus.contextRemoved(owner: owner, contextId: contextId)
        }
        providers.changed = { [unowned self] in self.menus.providersChanged() }
        undo.stateChanged = { [unowned self] appId, documentId in
            self.menus.undoChanged(appId: appId, documentId: documentId)
        }
    }

    /// A connection left the bus: its contexts and presentations go at once.
    func peerLeft(_ uniqueName: String) {
        trust.peerLeft(uniqueName)
        let held = ledger.heldBytes(by: uniqueName)
        defer { ledger.releasedMemory(held) }
        providers.ownerLeft(uniqueName)
        composer.ownerLeft(uniqueName)
        menus.peerLeft(uniqueName)
        if let app = contexts.peerLeft(uniqueName), !contexts.isRegistered(appId: app.appId) {
            undo.appLeft(app.appId)
        }
    }

    /// The declaration of `org.menubus.MenuBus1`; the served introspection
    /// of it must equal `dbus/org.menubus.MenuBus1.xml`.
    package func managerInterface() -> Interface {
        var manager = Interface(MenuBusNames.managerInterface)
        typealias API = MenuBusAPI.Manager
        manager.method(API.register) { [unowned self] call, appId, clientPath, options in
            try self.contexts.register(caller: call.sender, appId: appId, clientPath: clientPath, options: options)
        }
        manager.method(API.publishContext) { [unowned self] call, contextId, context, items in
            try self.contexts.publishContext(caller: call.sender, contextId: contextId, context: context, items: items,
                                        sizes: (call.argumentSize(1), call.argumentSize(2)))
        }
        manager.methodReadingBody(API.updateItems) { [unowned self] call in
            try self.contexts.updateItems(call)
        }
        manager.method(API.updateSelection) { [unowned self] call, contextId, selection in
            try self.contexts.updateSelection(caller: call.sender, contextId: contextId, selection: selection,
                                         selectionBytes: call.argumentSize(1))
        }
        manager.method(API.removeContext) { [unowned self] call, contextId in
            try self.contexts.removeContext(caller: call.sender, contextId: contextId)
        }
        for (declared, kind) in [(API.getContextMenu, MenuKind.context), (API.getEditMenu, .edit)] {
            manager.deferrableMethod(declared) { [unowned self] call, owner, contextId, options in
                call.reply(with: try self.composer.composedMenuReply(kind, caller: call.sender, owner: owner,
                                                                contextId: contextId, options: options))
                return nil
            }
        }
        manager.method(API.getContext) { [unowned self] call, owner, contextId in
            let (_, context) = try self.contexts.resolveOwner(owner, caller: call.sender, contextId: contextId)
            return (Wire.encode(context.info), Wire.encode(context.selection), context.revision, Wire.encode(context.items))
        }
        manager.method(API.presentMenu) { [unowned self] call, owner, contextId, kind, options in
            try self.menus.present(caller: call.sender, owner: owner, contextId: contextId, kind: kind, options: options)
        }
        manager.method(API.activatePrimaryAction) { [unowned self] call, owner, contextId, platformData in
            try self.menus.activatePrimaryAction(caller: call.sender, owner: owner, contextId: contextId,
                                                 platformData: platformData)
        }
        manager.deferrableMethod(API.showMenuForFocus) { [unowned self] call, options in
            try self.contexts.showMenuForFocus(call, options: options, connection: self.connection)
            return nil
        }
        manager.method(API.lint) { [unowned self] _, kind, items in
            try self.contexts.lint(kind: kind, items: items)
        }
        manager.method(API.registerProvider) { [unowned self] call, providerId, path, properties in
            try self.providers.register(caller: call.sender, providerId: providerId, path: path, properties: properties)
        }
        manager.method(API.unregisterProvider) { [unowned self] call, providerId in
            try self.providers.unregister(caller: call.sender, providerId: providerId)
        }
        undo.declare(in: &manager)
        providers.declareList(in: &manager)
        manager.method(API.listContexts) { [unowned self] call in
            self.contexts.listContexts(caller: call.sender)
        }
        manager.property("Version", UInt32.self) { MenuBusNames.apiVersion }
        // Uptime and resident size change all the time: no signal promises
        // otherwise, and a proxy reads Stats afresh.
        manager.property("Stats", signature: "a{sv}", emitsValue: false, emitsSignal: false) { [unowned self] in
            self.stats.dbusValue(residentBytes: ProcessMemory.residentBytes())
        }
        return manager
    }
}
