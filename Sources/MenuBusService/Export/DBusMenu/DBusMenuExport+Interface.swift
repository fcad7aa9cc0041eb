import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// `com.canonical.dbusmenu` on a presentation's path: what KDE Plasma,
/// libdbusmenu (waybar, xfce4-panel, Cinnamon) and GNOME's AppIndicator
/// extension read. Version 3: `EventGroup` and `AboutToShowGroup` exist.
extension DBusMenuExport {
    static func interface(_ menus: PresentedMenus) -> Interface {
        var menu = Interface(MenuBusNames.dbusMenuInterface)
        menu.deferrableMethod(DBusMenuAPI.getLayout) { [unowned menus] call, parent, depth, names in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            let query = PresentationExports.LayoutQuery(parent: parent, depth: depth < 0 ? -1 : depth, names: names)
            guard let prepared = try layoutReply(state, query) else {
                throw noItem(parent, field: "parentId")
            }
            call.reply(with: prepared)
            return nil
        }
        menu.method(DBusMenuAPI.getGroupProperties) { [unowned menus] call, ids, names in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            return state.dbusMenuLayout().groupProperties(ids, names: Set(names))
        }
        menu.method(DBusMenuAPI.getProperty) { [unowned menus] call, id, name in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            let layout = state.dbusMenuLayout()
            guard layout.node(id) != nil else { throw noItem(id, field: "id") }
            guard let value = layout.property(id, name) else {
                throw BusError.invalidArgs("name: menu item \(id) has no property '\(name)'")
            }
            return value
        }
        menu.method(DBusMenuAPI.event) { [unowned menus] call, id, eventId, _, timestamp in
            let number = try PresentedMenus.number(call)
            try deliver(menus, number, caller: call.sender, id: id, eventId: eventId, timestamp: timestamp)
        }
        menu.method(DBusMenuAPI.eventGroup) { [unowned menus] call, events in
            let number = try PresentedMenus.number(call)
            guard case .array(_, let events) = events else { return [] }
            guard events.count <= PresentationExports.maxEventsPerGroup else {
                throw BusError.limitExceeded("events: at most \(PresentationExports.maxEventsPerGroup) events in one EventGroup")
            }
            var idErrors: [Int32] = []
            var firstError: BusError?
            var delivered = 0
            for event in events {
                guard case .structure(let fields) = event, fields.count == 4,
                      case .int32(let id) = fields[0], case .string(let eventId) = fields[1],
                      case .uint32(let timestamp) = fields[3] else { continue }
                do {
                    try deliver(menus, number, caller: call.sender, id: id, eventId: eventId, timestamp: timestamp)
                    delivered += 1
                } catch let error as BusError {
                    idErrors.append(id)
                    if firstError == nil { firstError = error }
                }
            }
            // As libdbusmenu: an error only when no event could be delivered.
            if delivered == 0, let firstError { throw firstError }
            return idErrors
        }
        // While deferred elements of the menu load, the answer waits for
        // them and is true (DBusMenuExport+AboutToShow.swift).
        menu.deferrableMethod(DBusMenuAPI.aboutToShow) { [unowned menus] call, id in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            guard state.dbusMenuLayout().node(id) != nil else { throw noItem(id, field: "id") }
            let pending = loadingDeferred(under: id, state, menus.presentations[number])
            return answersLater(menus, call, state: state, pending: pending, group: nil) ? nil : false
        }
        menu.deferrableMethod(DBusMenuAPI.aboutToShowGroup) { [unowned menus] call, ids in
            let number = try PresentedMenus.number(call)
            let state = try menus.exported(number)
            let layout = state.dbusMenuLayout()
            var pending: Set<String> = [], updates: [Int32] = [], errors: [Int32] = []
            for id in ids {
                guard layout.node(id) != nil else {
                    errors.append(id)
                    continue
                }
                let loading = loadingDeferred(under: id, state, menus.presentations[number])
                if !loading.isEmpty {
                    updates.append(id)
                    pending.formUnion(loading)
                }
            }
            return answersLater(menus, call, state: state, pending: pending, group: (updates, errors)) ? nil : ([], errors)
        }
        menu.signal(DBusMenuAPI.itemsPropertiesUpdated)
        menu.signal(DBusMenuAPI.layoutUpdated)
        menu.signal(DBusMenuAPI.itemActivationRequested)
        menu.property("Version", UInt32.self) { 3 }
        menu.property("TextDirection", String.self, at: { [unowned menus] in menus.textDirection(at: $0) })
        menu.property("Status", String.self) { "normal" }
        menu.property("IconThemePath", [String].self) { [] }
        return menu
    }

    /// One dbusmenu event: `clicked` on an item chooses it as `Activate`
    /// does; `closed` on the root ends the presentation as `Dismiss` does
    /// (`consumerClosed`), `opened` calls that off; `hovered` needs nothing.
    /// The event's data may be of any type and is not used.
    private static func deliver(_ menus: PresentedMenus, _ number: UInt64, caller: String, id: Int32, eventId: String, timestamp: UInt32) throws {
        let state = try menus.exported(number)
        if state.isClosing, eventId == "clicked" {
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed")
        }
        guard let node = state.dbusMenuLayout().node(id) else { throw noItem(id, field: "id") }
        switch eventId {
        case "clicked":
            guard node.isAction, let itemId = node.elementId else { return }
            try menus.activate(menus.livePresentation(number), caller: caller, itemId: itemId,
                         platformData: PlatformData.exported([("timestamp", .uint32(timestamp))]))
        case "opened":
            menus.consumerOpened(number)
        case "closed" where id == DBusMenuLayout.rootId:
            menus.consumerClosed(number)
        default:
            break
        }
    }

    /// The marshalled `GetLayout` reply of `query` at the state's revision,
    /// cached; nil when the menu has no item `query.parent`.
    static func layoutReply(_ state: PresentationExports, _ query: PresentationExports.LayoutQuery) throws -> PreparedReply? {
        if let cached = state.layoutReplies[query] { return cached }
        guard let value = state.dbusMenuLayout().layout(query.parent, depth: query.depth, names: Set(query.names)) else {
            return nil
        }
        let prepared = try PreparedReply(DBusMenuAPI.getLayout, state.revision, value)
        state.cacheLayout(prepared, for: query)
        return prepared
    }

    /// After a `LayoutUpdated`, the replies consumers asked for before are
    /// prepared once the loop is free (the change's signals and replies have
    /// gone out), while the consumers handle the signal and send their
    /// `GetLayout`: KDE's importer and libdbusmenu's client refetch at once.
    static func prepareLayoutReplies(_ state: PresentationExports, loop: MessageLoop) {
        guard !state.recentLayoutQueries.isEmpty else { return }
        let revision = state.revision
        loop.addTimer(after: 0) { [weak state] in
            guard let state, state.revision == revision, !state.isClosing else { return }
            for query in state.recentLayoutQueries {
                _ = try? layoutReply(state, query)
            }
        }
    }

    static func noItem(_ id: Int32, field: String) -> BusError {
        BusError.invalidArgs("\(field): this menu has no item with id \(id)")
    }
}
