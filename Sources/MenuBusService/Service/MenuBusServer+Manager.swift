import MenuBusProviders
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

extension MenuBusServer {
    /// `UpdateItems`' context id, elements (unchecked; those read as the
    /// context held them, `held(contextId)`, are the held ones), the items'
    /// budget bytes and the bytes each element was read from, read from the
    /// call's body; nil where decoding its values must name a fault
    /// (`Wire.readElements`). `held` gives the context's items and the
    /// spans they were read from, if kept (`HeldItemSpans`).
    package static func readUpdateItems(
        _ cursor: inout BodyCursor,
        held: (String) -> (items: [MenuElement], spans: ElementSpans?) = { _ in ([], nil) }
    ) throws -> (contextId: String, elements: [MenuElement], itemsBytes: Int, spans: ElementSpans?)? {
        let contextId = try cursor.string()
        let start = cursor.bytesRead
        let (items, spans) = held(contextId)
        guard let read = Wire.readElements(&cursor, reusing: items, spans: spans) else { return nil }
        return (contextId, read.elements, cursor.bytesRead - start, read.spans)
    }

    /// The declaration of `org.menubus.MenuBus1`; the served introspection
    /// of it must equal `dbus/org.menubus.MenuBus1.xml`.
    package func managerInterface() -> Interface {
        var manager = Interface(MenuBusNames.managerInterface)
        typealias API = MenuBusAPI.Manager
        manager.method(API.register) { [unowned self] call, appId, clientPath, options in
            try self.register(caller: call.sender, appId: appId, clientPath: clientPath, options: options)
        }
        manager.method(API.publishContext) { [unowned self] call, contextId, context, items in
            try self.publishContext(caller: call.sender, contextId: contextId, context: context, items: items,
                                    sizes: (call.argumentSize(1), call.argumentSize(2)))
        }
        // A live change carries the whole menu: read from the call's bytes,
        // its values decoded only to name a fault.
        manager.methodReadingBody(API.updateItems) { [unowned self] call in
            #if DEBUG
            var heldSpans = false
            #endif
            let read = try? call.readBody { cursor in
                try MenuBusServer.readUpdateItems(&cursor) { contextId in
                    let items = (try? self.ownContext(call.sender, contextId))?.items ?? []
                    let spans = self.heldItemSpans.spans(owner: call.sender, contextId: contextId, items: items)
                    #if DEBUG
                    heldSpans = spans != nil
                    #endif
                    return (items, spans)
                }
            }
            #if DEBUG
            // Every daemon test checks the elements taken unread against reading them.
            if heldSpans, let taken = read?.elements {
                let plain = try? call.readBody { try MenuBusServer.readUpdateItems(&$0) }
                assert(plain?.elements == taken, "UpdateItems: elements taken unread differ from reading them")
            }
            #endif
            if let (contextId, elements, itemsBytes, spans) = read {
                let revision = try self.updateItems(caller: call.sender, contextId: contextId, read: elements,
                                                    itemsBytes: itemsBytes)
                self.heldItemSpans.keep(spans, of: elements, owner: call.sender, contextId: contextId)
                return revision
            }
            let (values, sizes) = try call.decodedArguments()
            let (contextId, items) = try API.updateItems.inputs.decode(values)
            return try self.updateItems(caller: call.sender, contextId: contextId, items: items,
                                        itemsBytes: sizes.indices.contains(1) ? sizes[1] : nil)
        }
        manager.method(API.updateSelection) { [unowned self] call, contextId, selection in
            try self.updateSelection(caller: call.sender, contextId: contextId, selection: selection,
                                     selectionBytes: call.argumentSize(1))
        }
        manager.method(API.removeContext) { [unowned self] call, contextId in
            try self.removeContext(caller: call.sender, contextId: contextId)
        }
        for (declared, kind) in [(API.getContextMenu, MenuKind.context), (API.getEditMenu, .edit)] {
            manager.deferrableMethod(declared) { [unowned self] call, owner, contextId, options in
                let (revision, menu, key) = try self.composedMenu(kind, caller: call.sender, owner: owner,
                                                                  contextId: contextId, options: options)
                // Equal menus get the same marshalled bytes (ComposedMenuReplies).
                call.reply(with: try self.composedReplies.reply(for: key, revision: revision, menu: menu))
                return nil
            }
        }
        manager.method(API.getContext) { [unowned self] call, owner, contextId in
            let (_, context) = try self.resolveOwner(owner, caller: call.sender, contextId: contextId)
            return (Wire.encode(context.info), Wire.encode(context.selection), context.revision, Wire.encode(context.items))
        }
        manager.method(API.presentMenu) { [unowned self] call, owner, contextId, kind, options in
            try self.present(caller: call.sender, owner: owner, contextId: contextId, kind: kind, options: options)
        }
        manager.method(API.activatePrimaryAction) { [unowned self] call, owner, contextId, platformData in
            try self.activatePrimaryAction(caller: call.sender, owner: owner, contextId: contextId, platformData: platformData)
        }
        manager.method(API.lint) { [unowned self] _, kind, items in
            try self.lint(kind: kind, items: items)
        }
        manager.method(API.registerProvider) { [unowned self] call, providerId, path, properties in
            try self.registerProvider(caller: call.sender, providerId: providerId, path: path, properties: properties)
        }
        manager.method(API.unregisterProvider) { [unowned self] call, providerId in
            try self.unregisterProvider(caller: call.sender, providerId: providerId)
        }
        declareUndo(in: &manager)
        declareProviderCatalog(in: &manager)
        manager.method(API.listContexts) { [unowned self] call in
            self.listContexts(caller: call.sender)
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
