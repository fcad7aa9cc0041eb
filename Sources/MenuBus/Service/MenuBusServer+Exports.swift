/// Presented menus also served in the desktop's menu protocols
/// (`com.canonical.dbusmenu`, `org.gtk.Menus`, `org.gtk.Actions`) at the
/// presentation's path. The mappings are in `Export/`; this file keeps them
/// in step with the presentation and signals what changed.
///
/// Every handler first brings the exports to the presentation's current
/// revision (`exported`), signalling the difference to consumers that saw
/// the older one before it answers, so a consumer never sees a reply older
/// than a signal, nor a signal that does not apply to what it holds.
extension MenuBusServer {
    static let dbusMenuInterface = "com.canonical.dbusmenu"
    static let gtkMenusInterface = "org.gtk.Menus"
    static let gtkActionsInterface = "org.gtk.Actions"

    /// Extra interfaces served at a presentation's path besides `org.menubus.MenuBus1.Menu`.
    func exportInterfaces(_ number: UInt64) -> [Interface] {
        exports[number] = PresentationExports()
        return [dbusMenuInterface(number), gtkMenusInterface(number), gtkActionsInterface(number)]
    }

    /// The presentation's layout changed (a new revision): signal it in every protocol.
    func exportsLayoutChanged(_ presentation: Presentation) {
        guard let state = exports[presentation.number] else { return }
        syncExports(presentation, state)
    }

    /// The presentation is closing; drop per-protocol state.
    func exportsClosed(_ presentation: Presentation) {
        exports[presentation.number] = nil
    }

    /// A connection left the bus; drop its subscriptions.
    func exportsPeerLeft(_ uniqueName: String) {
        for state in exports.values { state.dropSubscriber(uniqueName) }
    }

    /// The live presentation, recomposed when stale, and its exports
    /// brought to its revision.
    func exported(_ number: UInt64) throws -> (Presentation, PresentationExports) {
        let presentation = try livePresentation(number)
        bringUpToDate(presentation)
        guard let state = exports[number] else {
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed")
        }
        syncExports(presentation, state)
        return (presentation, state)
    }

    /// The dbusmenu mapping of the current revision, built on first use.
    func dbusMenuLayout(_ presentation: Presentation, _ state: PresentationExports) -> DBusMenuLayout {
        if let layout = state.dbusMenu { return layout }
        let layout = DBusMenuLayout(presentation.elements, ids: &state.ids)
        state.dbusMenu = layout
        return layout
    }

    /// The GMenuModel mapping of the current revision, built on first use.
    func gtkExport(_ presentation: Presentation, _ state: PresentationExports) -> GtkMenusExport {
        if let export = state.gtk { return export }
        let export = GtkMenusExport(presentation.elements, ids: &state.ids)
        state.gtk = export
        return export
    }

    /// Maps the new revision for every protocol a consumer has used and
    /// signals the difference: `ItemsPropertiesUpdated` and `LayoutUpdated`
    /// (broadcast), `org.gtk.Menus.Changed` (to each subscriber, for its
    /// groups only) and `org.gtk.Actions.Changed` (broadcast).
    private func syncExports(_ presentation: Presentation, _ state: PresentationExports) {
        guard state.revision != presentation.revision else { return }
        state.startRevision(presentation.revision)
        let path = presentation.path
        if let old = state.dbusMenu {
            let new = DBusMenuLayout(presentation.elements, ids: &state.ids)
            state.dbusMenu = new
            let changes = DBusMenuChanges(from: old, to: new)
            if changes.propertiesChanged {
                connection.emit(path, MenuBusServer.dbusMenuInterface, "ItemsPropertiesUpdated", changes.itemsPropertiesUpdated)
            }
            for parent in changes.layoutParents {
                connection.emit(path, MenuBusServer.dbusMenuInterface, "LayoutUpdated",
                                [.uint32(presentation.revision), .int32(parent)])
            }
        }
        if let old = state.gtk {
            let new = GtkMenusExport(presentation.elements, ids: &state.ids)
            state.gtk = new
            let actionChanges = new.actions.changes(from: old.actions)
            // Actions first, so an item never names an action its consumer
            // does not know yet; removals last, once no item names them.
            if let arguments = actionChanges.before {
                connection.emit(path, MenuBusServer.gtkActionsInterface, "Changed", arguments)
            }
            for (subscriber, groups) in state.groupsBySubscriber.sorted(by: { $0.key < $1.key }) {
                let rows = new.changes(from: old, in: groups)
                guard !rows.isEmpty else { continue }
                connection.emit(path, MenuBusServer.gtkMenusInterface, "Changed", [.array("(uuuuaa{sv})", rows)],
                                destination: subscriber)
            }
            if let arguments = actionChanges.after {
                connection.emit(path, MenuBusServer.gtkActionsInterface, "Changed", arguments)
            }
        }
    }

    /// `platformData` for an activation that came through another protocol.
    static func exportPlatformData(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }
}
