import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// What one presentation keeps to serve `com.canonical.dbusmenu`,
/// `org.gtk.Menus` and `org.gtk.Actions`: the numbers handed out, the
/// mapped layouts consumers last saw (to signal the difference), cached
/// replies for the current revision, and `org.gtk.Menus` subscriptions.
///
/// Each mapping is built the first time a consumer of that protocol asks,
/// so a menu nobody reads through these protocols costs nothing here.
///
/// A presentation that closes leaves its exports behind for a moment,
/// `isClosing`, showing an empty menu (so consumers that hold the menu
/// see it empty before the object goes).
package final class PresentationExports {
    var ids = ExportIDs()
    /// The presentation revision `dbusMenu` and `gtk` show.
    package private(set) var revision: UInt32 = 0
    /// The composed elements of that revision (none once closing).
    package private(set) var elements: [MenuElement] = []
    /// The context's title of that revision.
    package private(set) var title: String?
    private(set) var isClosing = false
    /// The mapping of `elements` consumers last read, if any did.
    var dbusMenu: DBusMenuLayout?
    package var gtk: GtkMenusExport?
    /// When the last `org.gtk.Menus` subscription or a dbusmenu `closed`
    /// on the root was seen: the presentation ends if this still holds a
    /// moment later. Counts so an older check does not act on a newer one.
    var endRequests = 0
    /// dbusmenu `AboutToShow`/`AboutToShowGroup` calls waiting for deferred
    /// elements (`MenuBusServer+AboutToShow.swift`).
    var aboutToShowWaiters: [AboutToShowWaiter] = []
    /// Calls that may wait at once; more are answered at once.
    static let maxAboutToShowWaiters = 32

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
    /// Marshalled replies of this revision (GetLayout by query, Start by groups).
    var layoutReplies: [LayoutQuery: PreparedReply] = [:]
    /// GetLayout queries consumers asked at an earlier revision: after a
    /// `LayoutUpdated` they ask them again, so their replies are prepared
    /// while the consumers handle the signal.
    private(set) var recentLayoutQueries: [LayoutQuery] = []
    /// Queries prepared ahead of a refetch.
    static let maxPreparedQueries = 4
    var startReplies: [[UInt32]: PreparedReply] = [:]
    /// `org.gtk.Menus` subscriptions: group → subscriber's unique name → count.
    package private(set) var subscriptions: [UInt32: [String: Int]] = [:]

    /// Cached replies per kind; further queries are answered uncached.
    static let maxCachedReplies = 16
    /// Queries with longer lists (property names, groups) are not cached.
    static let maxCachedKeyLength = 16
    /// Events in one `EventGroup`.
    static let maxEventsPerGroup = Limits.maxElementsPerMenu

    struct LayoutQuery: Hashable {
        package let parent: Int32
        package let depth: Int32
        package let names: [String]
    }

    /// Stores a reply under `key` while the cache has room and the key is short.
    func cacheLayout(_ reply: PreparedReply, for key: LayoutQuery) {
        guard layoutReplies.count < PresentationExports.maxCachedReplies,
              key.names.count <= PresentationExports.maxCachedKeyLength else { return }
        layoutReplies[key] = reply
    }

    func cacheStart(_ reply: PreparedReply, for groups: [UInt32]) {
        guard startReplies.count < PresentationExports.maxCachedReplies,
              groups.count <= PresentationExports.maxCachedKeyLength else { return }
        startReplies[groups] = reply
    }

    /// A new revision: the caches go.
    func startRevision(_ revision: UInt32, elements: [MenuElement], title: String?) {
        if !layoutReplies.isEmpty {
            recentLayoutQueries = layoutReplies.keys.sorted { ($0.parent, $0.depth, $0.names.count) < ($1.parent, $1.depth, $1.names.count) }
            recentLayoutQueries = Array(recentLayoutQueries.prefix(PresentationExports.maxPreparedQueries))
        }
        self.revision = revision
        self.elements = elements
        self.title = title
        dbusMenu = nil
        gtk = nil
        layoutReplies.removeAll()
        startReplies.removeAll()
    }

    /// The presentation closed: from now on the exports show an empty menu
    /// at a revision above every one consumers saw.
    package func close() {
        startRevision(revision &+ 1, elements: [], title: nil)
        isClosing = true
    }

    /// The dbusmenu mapping of the current revision, built on first use.
    func dbusMenuLayout() -> DBusMenuLayout {
        if let dbusMenu { return dbusMenu }
        let layout = DBusMenuLayout(elements, title: title, ids: &ids)
        dbusMenu = layout
        return layout
    }

    /// The GMenuModel mapping of the current revision, built on first use.
    func gtkExport() -> GtkMenusExport {
        if let gtk { return gtk }
        let export = GtkMenusExport(elements, title: title, ids: &ids)
        gtk = export
        return export
    }

    /// Whether nobody holds an `org.gtk.Menus` subscription.
    var hasNoSubscribers: Bool { subscriptions.isEmpty }

    package func subscribe(_ subscriber: String, to group: UInt32) {
        subscriptions[group, default: [:]][subscriber, default: 0] += 1
    }

    /// `End`: one subscription fewer; a group nobody holds is forgotten.
    package func unsubscribe(_ subscriber: String, from group: UInt32) {
        guard let count = subscriptions[group]?[subscriber] else { return }
        subscriptions[group]?[subscriber] = count > 1 ? count - 1 : nil
        if subscriptions[group]?.isEmpty == true { subscriptions[group] = nil }
    }

    /// The subscriber left the bus: all its subscriptions go.
    func dropSubscriber(_ subscriber: String) {
        for group in Array(subscriptions.keys) {
            subscriptions[group]?[subscriber] = nil
            if subscriptions[group]?.isEmpty == true { subscriptions[group] = nil }
        }
    }

    /// The groups each subscriber holds.
    var groupsBySubscriber: [String: Set<UInt32>] {
        var result: [String: Set<UInt32>] = [:]
        for (group, subscribers) in subscriptions {
            for subscriber in subscribers.keys { result[subscriber, default: []].insert(group) }
        }
        return result
    }
}
