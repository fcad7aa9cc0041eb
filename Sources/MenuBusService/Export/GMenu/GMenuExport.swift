import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// GLib's menu-model export as one presentation serves it: `org.gtk.Menus`
/// (its subscriptions and `Start`'s marshalled replies of this revision)
/// and `org.gtk.Actions`, one mapping for both. The interfaces are
/// declared in `GMenuExport+Interfaces.swift`, beside it in `Export/GMenu/`.
final class GMenuExport: MenuExport {
    var current: GMenuLayout?
    var shown: GMenuLayout?
    /// Marshalled `Start` replies of this revision, by groups.
    var startReplies: [[UInt32]: PreparedReply] = [:]
    /// `org.gtk.Menus` subscriptions: group → subscriber's unique name → count.
    private(set) var subscriptions: [UInt32: [String: Int]] = [:]

    init() {}

    static func interfaces(_ menus: PresentedMenus) -> [Interface] {
        [gtkMenusInterface(menus), gtkActionsInterface(menus)]
    }

    static func build(_ elements: [MenuElement], title: String?, ids: inout ExportIDs,
                      previous: GMenuLayout?) -> GMenuLayout {
        GMenuLayout(elements, title: title, ids: &ids, previous: previous)
    }

    static func patched(_ previous: GMenuLayout, _ patch: ElementPatch, title: String?,
                        ids: inout ExportIDs) -> GMenuLayout? {
        GMenuLayout.patched(previous, patch, title: title, ids: &ids)
    }

    func dropReplies() {
        startReplies.removeAll()
    }

    func cacheStart(_ reply: PreparedReply, for groups: [UInt32]) {
        guard startReplies.count < PresentationExports.maxCachedReplies,
              groups.count <= PresentationExports.maxCachedKeyLength else { return }
        startReplies[groups] = reply
    }

    /// `org.gtk.Actions.Changed` adding actions, `org.gtk.Menus.Changed` (to
    /// each subscriber, for its groups only), `org.gtk.Actions.Changed`
    /// removing actions. `emptying` removes every item of every subscribed
    /// menu, not only the root's.
    func emitChanges(from old: GMenuLayout, to new: GMenuLayout, _ change: ExportChange) {
        let connection = change.connection, path = change.path
        let actionChanges = new.actions.changes(from: old.actions)
        // Actions first, so an item never names an action its consumer
        // does not know yet; removals last, once no item names them.
        let targets = Set(change.state.signalTargets(.gtk)).union(groupsBySubscriber.keys).sorted()
        if let arguments = actionChanges.before { emitActionsChanged(connection, path, arguments, to: targets) }
        for (subscriber, groups) in groupsBySubscriber.sorted(by: { $0.key < $1.key }) {
            let rows = change.emptying ? old.emptyingRows(in: groups) : new.changes(from: old, in: groups)
            guard !rows.isEmpty else { continue }
            connection.emit(GtkMenusAPI.changed, at: path, .array("(uuuuaa{sv})", rows), destination: subscriber)
        }
        if let arguments = actionChanges.after { emitActionsChanged(connection, path, arguments, to: targets) }
    }

    /// `org.gtk.Actions.Changed` from the four values `GtkActions.changes`
    /// builds, to each connection that read the menu through GLib's protocols.
    private func emitActionsChanged(_ connection: Connection, _ path: ObjectPath, _ arguments: [DBusValue],
                                    to targets: [String]) {
        guard arguments.count == 4 else { return Log.error("org.gtk.Actions.Changed built with \(arguments.count) values") }
        for target in targets {
            connection.emit(GtkActionsAPI.changed, at: path, arguments[0], arguments[1], arguments[2], arguments[3],
                            destination: target)
        }
    }

    // MARK: Subscriptions

    /// Whether nobody holds an `org.gtk.Menus` subscription.
    var hasNoSubscribers: Bool { subscriptions.isEmpty }

    func subscribe(_ subscriber: String, to group: UInt32) {
        subscriptions[group, default: [:]][subscriber, default: 0] += 1
    }

    /// `End`: one subscription fewer; a group nobody holds is forgotten.
    func unsubscribe(_ subscriber: String, from group: UInt32) {
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

    /// The last subscription going with the peer is the consumer closing the menu.
    func peerLeft(_ uniqueName: String) -> Bool {
        let held = !hasNoSubscribers
        dropSubscriber(uniqueName)
        return held && hasNoSubscribers
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
