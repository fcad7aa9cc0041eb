import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// `com.canonical.dbusmenu` as one presentation serves it: the layout
/// consumers read, `GetLayout`'s marshalled replies of this revision, and
/// the `AboutToShow` calls waiting for deferred elements. The interface is
/// declared in `DBusMenuExport+Interface.swift`, the waits in
/// `DBusMenuExport+AboutToShow.swift`.
final class DBusMenuExport: MenuExport {
    var current: DBusMenuLayout?
    var shown: DBusMenuLayout?
    /// Marshalled `GetLayout` replies of this revision, by query.
    var layoutReplies: [PresentationExports.LayoutQuery: PreparedReply] = [:]
    /// GetLayout queries consumers asked at an earlier revision: after a
    /// `LayoutUpdated` they ask them again, so their replies are prepared
    /// while the consumers handle the signal.
    private(set) var recentLayoutQueries: [PresentationExports.LayoutQuery] = []
    /// Queries prepared ahead of a refetch.
    static let maxPreparedQueries = 4
    /// dbusmenu `AboutToShow`/`AboutToShowGroup` calls waiting for deferred
    /// elements (`DBusMenuExport+AboutToShow.swift`).
    var aboutToShowWaiters: [AboutToShowWaiter] = []
    /// Calls that may wait at once; more are answered at once.
    static let maxAboutToShowWaiters = 32

    init() {}

    static func interfaces(_ menus: PresentedMenus) -> [Interface] {
        [interface(menus)]
    }

    static func build(_ elements: [MenuElement], title: String?, ids: inout ExportIDs,
                      previous: DBusMenuLayout?) -> DBusMenuLayout {
        DBusMenuLayout(elements, title: title, ids: &ids)
    }

    static func patched(_ previous: DBusMenuLayout, _ patch: ElementPatch, title: String?,
                        ids: inout ExportIDs) -> DBusMenuLayout? {
        DBusMenuLayout.patched(previous, patch, ids: &ids)
    }

    /// The queries of the old revision's replies are kept to prepare again.
    func dropReplies() {
        if !layoutReplies.isEmpty {
            let queries = layoutReplies.keys.sorted { ($0.parent, $0.depth, $0.names.count) < ($1.parent, $1.depth, $1.names.count) }
            recentLayoutQueries = Array(queries.prefix(DBusMenuExport.maxPreparedQueries))
        }
        layoutReplies.removeAll()
    }

    /// Stores a reply under `key` while the cache has room and the key is short.
    func cacheLayout(_ reply: PreparedReply, for key: PresentationExports.LayoutQuery) {
        guard layoutReplies.count < PresentationExports.maxCachedReplies,
              key.names.count <= PresentationExports.maxCachedKeyLength else { return }
        layoutReplies[key] = reply
    }

    func revisionChanged(_ presentation: Presentation?) {
        releaseAboutToShow(presentation)
    }

    func closing() {
        releaseAboutToShow(nil)
    }

    /// `ItemsPropertiesUpdated` and `LayoutUpdated` (to each connection that
    /// read the menu through dbusmenu, never to the whole bus); after a
    /// `LayoutUpdated`, the `GetLayout` replies consumers asked for before
    /// are prepared (`DBusMenuExport.prepareLayoutReplies`).
    func emitChanges(from old: DBusMenuLayout, to new: DBusMenuLayout, _ change: ExportChange) {
        // A patched layout names the items it changed; it was patched from `old`.
        let changes = new.patchedItems == nil ? DBusMenuChanges(from: old, to: new)
            : DBusMenuChanges(from: old, toPatch: new)
        let targets = change.state.signalTargets(.dbusMenu)
        if changes.propertiesChanged {
            let arguments = changes.itemsPropertiesUpdated
            for target in targets {
                change.connection.emit(DBusMenuAPI.itemsPropertiesUpdated, at: change.path, arguments[0], arguments[1],
                                       destination: target)
            }
        }
        for parent in changes.layoutParents {
            for target in targets {
                change.connection.emit(DBusMenuAPI.layoutUpdated, at: change.path, change.revision, parent, destination: target)
            }
        }
        if !changes.layoutParents.isEmpty, !change.emptying { DBusMenuExport.prepareLayoutReplies(change.state, loop: change.menus.loop) }
    }

    /// A deferred `AboutToShow` reply: sent once none of `pending` is
    /// still loading, or at the timeout.
    struct AboutToShowWaiter {
        package let reply: PendingReply
        /// Deferred element ids loading in the menus asked about.
        package let pending: Set<String>
        /// `AboutToShowGroup`: the ids needing an update and the unknown ids; nil for `AboutToShow`.
        package let group: (updates: [Int32], errors: [Int32])?

        package func answer() {
            if let group {
                reply.reply(DBusMenuAPI.aboutToShowGroup, group.updates, group.errors)
            } else {
                reply.reply(DBusMenuAPI.aboutToShow, true)
            }
        }
    }
}
