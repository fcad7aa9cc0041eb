import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// What one presentation keeps to serve the desktop's menu protocols
/// (`MenuExport`: `com.canonical.dbusmenu`, `org.gtk.Menus` and
/// `org.gtk.Actions`): what they share (the revision shown, the numbers
/// handed out) and each protocol's own state (its mapping consumers last
/// saw, to signal the difference, cached replies, subscriptions).
///
/// Each mapping is built the first time a consumer of that protocol asks,
/// so a menu nobody reads through these protocols costs nothing here.
///
/// A presentation that closes leaves its exports behind for a moment,
/// `isClosing`, showing an empty menu (so consumers that hold the menu
/// see it empty before the object goes).
package final class PresentationExports {
    /// The protocol a connection reads a presented menu through.
    package enum Readership: Hashable, Sendable {
        case menu, dbusMenu, gtk

        init?(interface: String) {
            switch interface {
            case MenuBusNames.menuInterface: self = .menu
            case MenuBusNames.dbusMenuInterface: self = .dbusMenu
            case MenuBusNames.gtkMenusInterface, MenuBusNames.gtkActionsInterface: self = .gtk
            default: return nil
            }
        }
    }

    /// The app whose context is shown, and the connection that presented it.
    package let owner: String
    package let presenter: String
    /// Who called the menu through each protocol (past the access check):
    /// its change signals go to them alone, never to the whole bus.
    private var readers: [Readership: Set<String>] = [:]
    /// Readers remembered per protocol; further ones can still call, but
    /// hear no change signals.
    static let maxReaders = 64
    var ids = ExportIDs()
    /// The presentation revision the protocols show.
    package private(set) var revision: UInt32 = 0
    /// The composed elements of that revision (none once closing).
    package private(set) var elements: [MenuElement] = []
    /// The context's title of that revision.
    package private(set) var title: String?
    /// How that revision differs from the one before when only what some
    /// items show changed (`ElementPatch`), so mappings can be patched.
    private(set) var patch: ElementPatch?
    private(set) var isClosing = false
    /// One instance of each protocol in `PresentedMenus.menuExports`, in that order.
    let protocols: [any MenuExport]
    /// When the last `org.gtk.Menus` subscription or a dbusmenu `closed`
    /// on the root was seen: the presentation ends if this still holds a
    /// moment later. Counts so an older check does not act on a newer one.
    var endRequests = 0

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

    init(owner: String = "", presenter: String = "", _ exports: [any MenuExport.Type] = PresentedMenus.menuExports) {
        self.owner = owner
        self.presenter = presenter
        protocols = exports.map { $0.init() }
    }

    func noteReader(_ uniqueName: String, of kind: Readership) {
        guard readers[kind, default: []].count < Self.maxReaders else { return }
        readers[kind, default: []].insert(uniqueName)
    }

    /// Whom the change signals of `kind` go to: its readers, and for the
    /// native interface the presenter, who follows the menu it presented.
    package func signalTargets(_ kind: Readership) -> [String] {
        var targets = readers[kind, default: []]
        if kind == .menu { targets.insert(presenter) }
        return targets.sorted()
    }

    func readerLeft(_ uniqueName: String) {
        for kind in readers.keys { readers[kind]?.remove(uniqueName) }
    }

    /// This presentation's instance of the protocol `type`.
    func export<Export: MenuExport>(_ type: Export.Type) -> Export {
        for export in protocols {
            if let match = export as? Export { return match }
        }
        preconditionFailure("\(type) is not in PresentedMenus.menuExports")
    }

    /// A new revision: each protocol keeps what its consumers read, to
    /// signal from; mappings and caches of the old revision go.
    func startRevision(_ revision: UInt32, elements: [MenuElement], title: String?) {
        patch = ElementPatch(from: self.elements, title: self.title, to: elements, title: title)
        self.revision = revision
        self.elements = elements
        self.title = title
        for export in protocols { export.startRevision() }
    }

    /// The presentation closed: from now on the exports show an empty menu
    /// at a revision above every one consumers saw.
    package func close() {
        startRevision(revision &+ 1, elements: [], title: nil)
        isClosing = true
    }

    // MARK: What the interfaces read

    /// The dbusmenu mapping of the current revision, built on first use.
    func dbusMenuLayout() -> DBusMenuLayout {
        export(DBusMenuExport.self).mapping(in: self)
    }

    /// The GMenuModel mapping of the current revision, built on first use.
    func gMenuLayout() -> GMenuLayout {
        export(GMenuExport.self).mapping(in: self)
    }

    /// Marshalled replies of this revision (GetLayout by query, Start by groups).
    var layoutReplies: [LayoutQuery: PreparedReply] { export(DBusMenuExport.self).layoutReplies }
    var startReplies: [[UInt32]: PreparedReply] { export(GMenuExport.self).startReplies }
    /// GetLayout queries consumers asked at an earlier revision, prepared
    /// again after a `LayoutUpdated` (`DBusMenuExport.recentLayoutQueries`).
    var recentLayoutQueries: [LayoutQuery] { export(DBusMenuExport.self).recentLayoutQueries }

    /// Stores a reply under `key` while the cache has room and the key is short.
    func cacheLayout(_ reply: PreparedReply, for key: LayoutQuery) {
        export(DBusMenuExport.self).cacheLayout(reply, for: key)
    }

    func cacheStart(_ reply: PreparedReply, for groups: [UInt32]) {
        export(GMenuExport.self).cacheStart(reply, for: groups)
    }

    /// Whether nobody holds an `org.gtk.Menus` subscription.
    var hasNoSubscribers: Bool { export(GMenuExport.self).hasNoSubscribers }

    package func subscribe(_ subscriber: String, to group: UInt32) {
        export(GMenuExport.self).subscribe(subscriber, to: group)
    }

    /// `End`: one subscription fewer; a group nobody holds is forgotten.
    package func unsubscribe(_ subscriber: String, from group: UInt32) {
        export(GMenuExport.self).unsubscribe(subscriber, from: group)
    }

    /// The subscriber left the bus: all its subscriptions go.
    func dropSubscriber(_ subscriber: String) {
        export(GMenuExport.self).dropSubscriber(subscriber)
    }

    /// The groups each subscriber holds.
    var groupsBySubscriber: [String: Set<UInt32>] { export(GMenuExport.self).groupsBySubscriber }
}
