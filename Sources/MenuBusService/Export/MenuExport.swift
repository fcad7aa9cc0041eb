import MenuBusModel
import MenuBusDBus

/// One of the desktop's menu protocols a presentation is served in at its
/// path besides `org.menubus.MenuBus1.Menu`. Every presentation holds one
/// instance of each protocol in `PresentedMenus.menuExports`, inside its
/// `PresentationExports`, which keeps what they share: the revision shown,
/// its elements and title, the numbers handed out, whether it is closing.
///
/// `PresentedMenus+Exports.swift` drives each protocol through the same steps:
/// - **build**: `build` maps the shared revision, the first time a consumer
///   of this protocol reads it (`mapping(in:)`), never before; a revision
///   that changed only what some items show (`ElementPatch`) is instead
///   `patched` from the mapping consumers hold, when the protocol can;
/// - **diff and emit**: at a new revision the mapping consumers read is
///   kept (`startRevision`), calls held for the old one are answered
///   (`revisionChanged`), then `emitChanges` signals the difference from it
///   to the new mapping, or, while closing, that the menu is now empty;
///   a protocol nobody read signals nothing;
/// - **closed**: `closing` answers what still waits on the presentation;
/// - **peer left**: `peerLeft` drops what a connection held.
///
/// A new protocol is one file (its conforming type and its interfaces) and
/// one line in `PresentedMenus.menuExports`.
protocol MenuExport: AnyObject {
    /// The protocol's form of one revision.
    associatedtype Mapping: Equatable

    init()

    /// The D-Bus interfaces of this protocol, declared once for every
    /// presentation's path (each handler finds the presentation from it).
    static func interfaces(_ menus: PresentedMenus) -> [Interface]

    /// Maps a revision's elements and title, numbering new ones in `ids`;
    /// `previous` is the mapping consumers hold (none while the menu
    /// closes), for what a protocol keeps across revisions.
    static func build(_ elements: [MenuElement], title: String?, ids: inout ExportIDs, previous: Mapping?) -> Mapping

    /// `previous`, the mapping of the revision before, patched to show
    /// `patch`'s changed elements (under the same `title`): the mapping
    /// `build` would make, which debug builds check. Nil when this
    /// protocol maps such a change in full (the default).
    static func patched(_ previous: Mapping, _ patch: ElementPatch, title: String?, ids: inout ExportIDs) -> Mapping?

    /// The mapping of the current revision, once a consumer read it.
    var current: Mapping? { get set }
    /// The mapping consumers read before the revision changed, until its
    /// change is signalled.
    var shown: Mapping? { get set }

    /// The replies cached for the old revision go.
    func dropReplies()

    /// The revision changed (before any signal goes out): calls held until
    /// `presentation` (nil once it closed) no longer waits are answered.
    func revisionChanged(_ presentation: Presentation?)

    /// Signals, as this protocol does, the change from `old` to `new`;
    /// `change.emptying` when the menu closed and is now empty.
    func emitChanges(from old: Mapping, to new: Mapping, _ change: ExportChange)

    /// The presentation closed: nothing more will arrive for it.
    func closing()

    /// A connection left the bus: what it held goes. True when it was the
    /// last consumer holding the menu open (the consumer closed the menu).
    func peerLeft(_ uniqueName: String) -> Bool
}

/// The circumstances of one signalled change.
struct ExportChange {
    let menus: PresentedMenus
    /// The presentation's exports, at the revision consumers are taken to.
    let state: PresentationExports
    let path: ObjectPath
    /// The revision consumers are taken to.
    let revision: UInt32
    /// The menu closed: every item goes.
    let emptying: Bool

    var connection: Connection { menus.connection }
}

extension MenuExport {
    static func patched(_ previous: Mapping, _ patch: ElementPatch, title: String?, ids: inout ExportIDs) -> Mapping? {
        nil
    }

    func revisionChanged(_ presentation: Presentation?) {}
    func closing() {}
    func peerLeft(_ uniqueName: String) -> Bool { false }

    /// The mapping of `state`'s revision, built on first use: patched from
    /// the one consumers hold when only what items show changed.
    func mapping(in state: PresentationExports) -> Mapping {
        if let current { return current }
        let mapping: Mapping
        if !state.isClosing, let shown, let patch = state.patch,
           let patched = Self.patched(shown, patch, title: state.title, ids: &state.ids) {
            mapping = patched
            assert(patched == Self.fullMapping(of: state, previous: shown), "\(Self.self) patched a mapping wrongly")
        } else {
            mapping = Self.build(state.elements, title: state.title, ids: &state.ids,
                                 previous: state.isClosing ? nil : shown)
        }
        current = mapping
        return mapping
    }

    /// What `build` makes of `state`'s revision, numbering in a copy of its ids.
    private static func fullMapping(of state: PresentationExports, previous: Mapping) -> Mapping {
        var ids = state.ids
        return build(state.elements, title: state.title, ids: &ids, previous: previous)
    }

    /// A new revision: what consumers read is kept to signal from; the
    /// mapping and the replies of the old one go.
    func startRevision() {
        shown = current
        current = nil
        dropReplies()
    }

    /// Whether a consumer read this protocol's last revision.
    var hasChangeToSignal: Bool { shown != nil }

    /// Signals the change from what consumers read to `state`'s revision
    /// (built now), if they read anything.
    func signalChange(_ state: PresentationExports, menus: PresentedMenus, path: ObjectPath, emptying: Bool) {
        guard let old = shown else { return }
        let new = mapping(in: state)
        shown = nil
        emitChanges(from: old, to: new, ExportChange(menus: menus, state: state, path: path,
                                                     revision: state.revision, emptying: emptying))
    }
}
