/// What changed between two `DBusMenuLayout`s, as dbusmenu signals it:
/// `ItemsPropertiesUpdated` for items present in both, `LayoutUpdated`
/// when any item's children changed.
struct DBusMenuChanges: Equatable {
    /// Items in both layouts whose properties changed: the new or changed values.
    var updated: [(id: Int32, properties: [ExportProperty])] = []
    /// Items in both layouts that lost properties (back to the default).
    var removed: [(id: Int32, names: [String])] = []
    /// The item whose subtree must be fetched again, when the structure
    /// changed: the one parent whose children changed, else the root.
    var layoutParent: Int32?

    init(from old: DBusMenuLayout, to new: DBusMenuLayout) {
        var changedParents: [Int32] = []
        for id in new.nodes.keys.sorted() {
            guard let after = new.node(id) else { continue }
            guard let before = old.node(id) else { continue }
            if before.children != after.children { changedParents.append(id) }
            guard before.properties != after.properties else { continue }
            let changed = after.properties.filter { property in
                before.properties.value(named: property.name) != property.value
            }
            if !changed.isEmpty { updated.append((id, changed)) }
            let gone = before.properties.lazy.map(\.name).filter { after.properties.value(named: $0) == nil }
            if !gone.isEmpty { removed.append((id, Array(gone))) }
        }
        let added = new.nodes.keys.contains { old.node($0) == nil }
        let dropped = old.nodes.keys.contains { new.node($0) == nil }
        if changedParents.count == 1, let parent = changedParents.first {
            layoutParent = parent
        } else if !changedParents.isEmpty || added || dropped {
            // Items added or dropped always change some parent's children;
            // several parents (or none found) means the root.
            layoutParent = DBusMenuLayout.rootId
        }
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
        lhs.layoutParent == rhs.layoutParent
            && lhs.updated.elementsEqual(rhs.updated) { $0.id == $1.id && $0.properties == $1.properties }
            && lhs.removed.elementsEqual(rhs.removed) { $0.id == $1.id && $0.names == $1.names }
    }
}
