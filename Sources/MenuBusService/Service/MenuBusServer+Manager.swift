import MenuBusProviders
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

extension MenuBusServer {
    /// The declaration of `org.menubus.MenuBus1`; the served introspection
    /// of it must equal `dbus/org.menubus.MenuBus1.xml`.
    package func managerInterface() -> Interface {
        var manager = Interface(MenuBusNames.managerInterface)
        let elements = arg("items", signature: "a(ssa{sv})")
        manager.method("Register", in: [arg("appId", String.self), arg("clientPath", ObjectPath.self),
                                        arg("options", [String: DBusValue].self)]) { [unowned self] call in
            try self.register(caller: call.sender, appId: call.argument(0), clientPath: call.argument(1),
                              options: call.arguments[2])
            return []
        }
        manager.method("PublishContext", in: [arg("contextId", String.self), arg("context", [String: DBusValue].self), elements],
                       out: [arg("revision", UInt32.self)]) { [unowned self] call in
            [.uint32(try self.publishContext(caller: call.sender, contextId: call.argument(0),
                                             context: call.arguments[1], items: call.arguments[2]))]
        }
        manager.method("UpdateItems", in: [arg("contextId", String.self), elements],
                       out: [arg("revision", UInt32.self)]) { [unowned self] call in
            [.uint32(try self.updateItems(caller: call.sender, contextId: call.argument(0), items: call.arguments[1]))]
        }
        manager.method("UpdateSelection", in: [arg("contextId", String.self), arg("selection", [String: DBusValue].self)]) {
            [unowned self] call in
            try self.updateSelection(caller: call.sender, contextId: call.argument(0), selection: call.arguments[1])
            return []
        }
        manager.method("RemoveContext", in: [arg("contextId", String.self)]) { [unowned self] call in
            try self.removeContext(caller: call.sender, contextId: call.argument(0))
            return []
        }
        for (member, kind) in [("GetContextMenu", MenuKind.context), ("GetEditMenu", .edit)] {
            manager.method(member, in: [arg("owner", String.self), arg("contextId", String.self),
                                        arg("options", [String: DBusValue].self)],
                           out: [arg("revision", UInt32.self), elements]) { [unowned self] call in
                let (revision, menu, key) = try self.composedMenu(kind, caller: call.sender, owner: call.argument(0),
                                                                  contextId: call.argument(1), options: call.arguments[2])
                // Equal menus get the same marshalled bytes (ComposedMenuReplies).
                call.reply(with: try self.composedReplies.reply(for: key, revision: revision, menu: menu))
                return []
            }
        }
        manager.method("GetContext", in: [arg("owner", String.self), arg("contextId", String.self)],
                       out: [arg("context", [String: DBusValue].self), arg("selection", [String: DBusValue].self),
                             arg("revision", UInt32.self), elements]) { [unowned self] call in
            let (_, context) = try self.resolveOwner(call.argument(0), caller: call.sender, contextId: call.argument(1))
            return [Wire.encode(context.info), Wire.encode(context.selection), .uint32(context.revision), Wire.encode(context.items)]
        }
        manager.method("PresentMenu", in: [arg("owner", String.self), arg("contextId", String.self),
                                           arg("kind", String.self), arg("options", [String: DBusValue].self)],
                       out: [arg("menu", ObjectPath.self)]) { [unowned self] call in
            [.objectPath(try self.present(caller: call.sender, owner: call.argument(0), contextId: call.argument(1),
                                          kind: call.argument(2), options: call.arguments[3]))]
        }
        manager.method("Lint", in: [arg("kind", String.self), elements],
                       out: [arg("findings", signature: "a(sss)")]) { [unowned self] call in
            [try self.lint(kind: call.argument(0), items: call.arguments[1])]
        }
        manager.method("RegisterProvider", in: [arg("providerId", String.self), arg("providerPath", ObjectPath.self),
                                                arg("properties", [String: DBusValue].self)]) { [unowned self] call in
            try self.registerProvider(caller: call.sender, providerId: call.argument(0), path: call.argument(1),
                                      properties: call.arguments[2])
            return []
        }
        manager.method("UnregisterProvider", in: [arg("providerId", String.self)]) { [unowned self] call in
            try self.unregisterProvider(caller: call.sender, providerId: call.argument(0))
            return []
        }
        declareUndo(in: &manager)
        declareProviderCatalog(in: &manager)
        manager.method("ListContexts", out: [arg("contexts", signature: "a(sss)")]) { [unowned self] call in
            [self.listContexts(caller: call.sender)]
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
