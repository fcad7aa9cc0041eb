import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// What changed between two `DBusMenuLayout`s, as dbusmenu signals it, in
/// the smallest form consumers follow:
/// - `LayoutUpdated` for each parent whose children changed, or one of
///   whose children changed a property consumers fix when they create an
///   item (`type`, `toggle-type`, `children-display`: KDE's importer
///   ignores updates of them), leaving out parents inside another one
///   refetched (a consumer refetches the whole subtree);
/// - `ItemsPropertiesUpdated` for the other property changes of items in
///   both layouts and outside those subtrees.
struct DBusMenuChanges: Equatable {
    /// Items in both layouts whose properties changed: the new or changed values.
    var updated: [(id: Int32, properties: [ExportProperty])] = []
    /// Items in both layouts that lost properties (back to the default).
    var removed: [(id: Int32, names: [String])] = []
    /// The items whose subtrees must be fetched again, in id order; none
    /// is inside another's subtree.
    var layoutParents: [Int32] = []

    /// Properties a consumer reads only when it creates an item.
    static let fixedProperties: Set<String> = ["type", "toggle-type", "children-display"]

    init(from old: DBusMenuLayout, to new: DBusMenuLayout) {
        var parentOf: [Int32: Int32] = [:]
        parentOf.reserveCapacity(new.nodes.count)
        for (id, node) in new.nodes {
            for child in node.children { parentOf[child] = id }
        }
        var refetch: Set<Int32> = []
        for (id, after) in new.nodes {
            guard let before = old.node(id) else { continue }
            if before.children != after.children { refetch.insert(id) }
            guard before.properties != after.properties else { continue }
            let fixedChanged = DBusMenuChanges.fixedProperties.contains { name in
                before.properties.value(named: name) != after.properties.value(named: name)
            }
            if fixedChanged { refetch.insert(parentOf[id] ?? DBusMenuLayout.rootId) }
        }
        // Refetching a parent refreshes everything below it.
        func inRefetched(_ id: Int32, includingSelf: Bool) -> Bool {
            var current: Int32? = includingSelf ? id : parentOf[id]
            var steps = 0
            while let node = current, steps <= new.nodes.count {
                if refetch.contains(node) { return true }
                current = parentOf[node]
                steps += 1
            }
            return false
        }
        layoutParents = refetch.filter { !inRefetched($0, includingSelf: false) }.sorted()
        for id in new.nodes.keys.sorted() {
            guard let after = new.node(id), let before = old.node(id), before.properties != after.properties,
                  !inRefetched(id, includingSelf: false) else { continue }
            addPropertyChanges(id, before.properties, after.properties)
        }
    }

    /// The change from `old` to `new`, its patch (`DBusMenuLayout.patched`):
    /// only the properties of `new.patchedItems` changed, none fixed at an
    /// item's creation, and no item's children. The same as comparing the
    /// whole layouts, which debug builds check.
    init(from old: DBusMenuLayout, toPatch new: DBusMenuLayout) {
        for id in new.patchedItems ?? [] {
            guard let after = new.node(id), let before = old.node(id), before.properties != after.properties else { continue }
            addPropertyChanges(id, before.properties, after.properties)
        }
        assert(self == DBusMenuChanges(from: old, to: new), "a patch's change differs from the layouts' difference")
    }

    /// The properties item `id` changed or lost from `before` to `after`,
    /// but those fixed at its creation.
    @inline(__always)
    private mutating func addPropertyChanges(_ id: Int32, _ before: [ExportProperty], _ after: [ExportProperty]) {
        let changed = after.filter { property in
            !DBusMenuChanges.fixedProperties.contains(property.name) && before.value(named: property.name) != property.value
        }
        if !changed.isEmpty { updated.append((id, changed)) }
        let gone = before.lazy.map(\.name).filter {
            !DBusMenuChanges.fixedProperties.contains($0) && after.value(named: $0) == nil
        }
        if !gone.isEmpty { removed.append((id, Array(gone))) }
    }

    var propertiesChanged: Bool { !updated.isEmpty || !removed.isEmpty }

    /// `ItemsPropertiesUpdated`'s arguments: `a(ia{sv})`, `a(ias)`.
    var itemsPropertiesUpdated: [DBusValue] {
        [
            .array("(ia{sv})", updated.map { .structure([.int32($0.id), $0.properties.dictionary()]) }),
            .array("(ias)", removed.map { .structure([.int32($0.id), .array("s", $0.names.map(DBusValue.string))]) }),
        ]
    }

    static func == (lhs: DBusMenuChanges, rhs: DBusMenuChanges) -> Bool {
        lhs.layoutParents == rhs.layoutParents
            && lhs.updated.elementsEqual(rhs.updated) { $0.id == $1.id && $0.properties == $1.properties }
            && lhs.removed.elementsEqual(rhs.removed) { $0.id == $1.id && $0.names == $1.names }
    }
}
