import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// A presented menu as `com.canonical.dbusmenu` sees it: a tree of items
/// with integer ids under the root 0.
///
/// Mapping from the composed elements:
/// - the root carries the context's title as its `label`;
/// - an action is a standard item; a submenu is an item with
///   `children-display` "submenu" and its children under it;
/// - a section (an inline menu) has no item of its own: its children stand
///   in its parent, with a separator between neighbouring groups (a run of
///   loose items, or a section), never at an end and never two in a row;
/// - `label` always (underscores doubled, see `MenuLabel`); `enabled` false
///   for disabled; `visible` false for hidden; `icon-name`; `shortcut` as
///   `aas` from the GTK accelerator; `toggle-type`/`toggle-state` as
///   `ExportToggle` decides, kept for the item's life (`ExportIDs.toggle`);
///   every other property is left at its default and not sent. Destructive
///   items send no `disposition`: KDE's importer warns about it
///   (`Unhandled property update "disposition"`) and no named consumer
///   draws it.
struct DBusMenuLayout: Equatable {
    struct Node: Equatable {
        var properties: [ExportProperty]
        var children: [Int32]
        /// The element this item shows; nil for the root and separators.
        var elementId: String?
        /// A standard item that can be clicked (not a submenu or separator).
        var isAction: Bool
    }

    private(set) var nodes: [Int32: Node]
    /// For a layout patched from the one before (`patched`): the items
    /// whose properties it changed, in id order, so the change is signalled
    /// without comparing every item. Not part of the layout's value.
    private(set) var patchedItems: [Int32]?

    static let rootId: Int32 = 0

    static func == (lhs: DBusMenuLayout, rhs: DBusMenuLayout) -> Bool {
        lhs.nodes == rhs.nodes
    }

    /// Maps `elements`, numbering new ones in `ids`; a `title` (the
    /// context's) is the root's `label`.
    init(_ elements: [MenuElement], title: String? = nil, ids: inout ExportIDs) {
        var builder = Builder(tree: ExportTree(elements))
        let rootChildren = builder.flatten("", parent: nil, ids: &ids)
        var rootProperties = [ExportProperty("children-display", .string("submenu"))]
        if let title, !title.isEmpty { rootProperties.insert(ExportProperty("label", .string(MenuLabel.escaped(title))), at: 0) }
        builder.nodes[DBusMenuLayout.rootId] = Node(properties: rootProperties, children: rootChildren,
                                                    elementId: nil, isAction: false)
        nodes = builder.nodes
        // Keep the GTK export's section and submenu numbers of this menu too
        // (separators are kept with their anchors).
        ids.retain(Set(elements.lazy.map(\.id)).union([GMenuLayout.titleSectionKey]))
    }

    /// `previous`, the layout of the revision before, with the items of
    /// `patch`'s changed elements shown anew: what mapping the whole menu
    /// would give. Nil when an item's `type`, `toggle-type` or
    /// `children-display` would change (consumers fix those when they
    /// create an item: the parent is fetched again, which the full diff
    /// finds), or when an item is not where the patch says.
    static func patched(_ previous: DBusMenuLayout, _ patch: ElementPatch, ids: inout ExportIDs) -> DBusMenuLayout? {
        var layout = previous
        var changed: [Int32] = []
        for index in patch.changed {
            let element = patch.elements[index]
            // Sections and deferred elements have no item; an element with
            // no item in `previous` (inside a deferred one) declines the patch.
            guard element.kind != .deferred, !element.isSection else { continue }
            guard let id = ids.existingItem(element.id), var node = layout.nodes[id], node.elementId == element.id
            else { return nil }
            let parent = patch.parent(of: index)
            let properties = DBusMenuLayout.properties(of: element, parent: parent, toggle: ids.toggle(element, parent: parent))
            guard properties != node.properties else { continue }
            for name in DBusMenuChanges.fixedProperties
            where properties.value(named: name) != node.properties.value(named: name) {
                return nil
            }
            node.properties = properties
            layout.nodes[id] = node
            changed.append(id)
        }
        layout.patchedItems = changed.sorted()
        return layout
    }

    func node(_ id: Int32) -> Node? {
        nodes[id]
    }

    /// `(ia{sv}av)` for `GetLayout`: the item, its properties (only `names`
    /// when not empty) and its children `depth` levels down (−1: all).
    /// Nil when there is no item `id`.
    func layout(_ id: Int32, depth: Int32, names: Set<String>) -> DBusValue? {
        guard let node = nodes[id] else { return nil }
        var children: [DBusValue] = []
        if depth != 0 {
            children.reserveCapacity(node.children.count)
            let next = depth < 0 ? -1 : depth - 1
            for child in node.children {
                if let value = layout(child, depth: next, names: names) { children.append(.variant(value)) }
            }
        }
        return .structure([.int32(id), node.properties.dictionary(only: names), .array("v", children)])
    }

    /// `a(ia{sv})` for `GetGroupProperties`; ids without an item are left
    /// out, as libdbusmenu's own server does (a consumer may ask for an item
    /// that just went away), and each item comes once.
    func groupProperties(_ ids: [Int32], names: Set<String>) -> DBusValue {
        var rows: [DBusValue] = []
        var seen: Set<Int32> = []
        for id in ids where seen.insert(id).inserted {
            guard let node = nodes[id] else { continue }
            rows.append(.structure([.int32(id), node.properties.dictionary(only: names)]))
        }
        return .array("(ia{sv})", rows)
    }

    /// A property of an item: the value sent, else the protocol's default
    /// for a property this exporter knows; nil for any other name.
    func property(_ id: Int32, _ name: String) -> DBusValue? {
        guard let node = nodes[id] else { return nil }
        if let value = node.properties.value(named: name) { return value }
        return DBusMenuLayout.defaults[name]
    }

    /// What a consumer assumes for a property that is not sent (libdbusmenu's defaults).
    static let defaults: [String: DBusValue] = [
        "type": .string("standard"), "label": .string(""), "enabled": .boolean(true),
        "visible": .boolean(true), "icon-name": .string(""), "toggle-type": .string(""),
        "toggle-state": .int32(-1), "children-display": .string(""), "disposition": .string("normal"),
        "shortcut": .array("as", []),
    ]

    private struct Builder {
        let tree: ExportTree
        var nodes: [Int32: Node] = [:]

        init(tree: ExportTree) {
            self.tree = tree
            nodes.reserveCapacity(tree.elements.count + 8)
        }

        /// A run of neighbouring items, or one section's items: separators go between groups.
        struct Group {
            var anchor: String
            var ids: [Int32] = []
            var visible = false
        }

        /// The dbusmenu children of a submenu (or the root): its items and
        /// its sections' items, groups joined by separators.
        mutating func flatten(_ container: String, parent: MenuElement?, ids: inout ExportIDs) -> [Int32] {
            var groups: [Group] = []
            collect(container, parent: parent, firstAnchor: container, into: &groups, ids: &ids)
            var result: [Int32] = []
            var visibleBefore = false
            for group in groups {
                if group.visible {
                    if visibleBefore {
                        let key = ExportIDs.separatorKey(group.anchor)
                        let separator = ids.item(key)
                        nodes[separator] = Node(properties: [ExportProperty("type", .string("separator"))],
                                                children: [], elementId: nil, isAction: false)
                        result.append(separator)
                    }
                    visibleBefore = true
                }
                result.append(contentsOf: group.ids)
            }
            return result
        }

        private mutating func collect(_ container: String, parent: MenuElement?, firstAnchor: String,
                                      into groups: inout [Group], ids: inout ExportIDs) {
            var run: Group?
            var anchor: String? = firstAnchor
            for element in tree.children(of: container) {
                if element.isSection {
                    if let finished = run { groups.append(finished) }
                    run = nil
                    anchor = nil
                    collect(element.id, parent: element, firstAnchor: element.id, into: &groups, ids: &ids)
                    continue
                }
                let id = ids.item(element.id)
                var node = Node(properties: DBusMenuLayout.properties(of: element, parent: parent,
                                                                     toggle: ids.toggle(element, parent: parent)),
                                children: [], elementId: element.id, isAction: element.kind == .action)
                if element.isSubmenu {
                    node.children = flatten(element.id, parent: element, ids: &ids)
                }
                nodes[id] = node
                if run == nil {
                    run = Group(anchor: anchor ?? element.id)
                    anchor = nil
                }
                run?.ids.append(id)
                if !element.has(.hidden) { run?.visible = true }
            }
            if let finished = run { groups.append(finished) }
        }
    }

    /// The non-default properties of an item (`label` always).
    static func properties(of element: MenuElement, parent: MenuElement?,
                           toggle: ExportToggle? = nil) -> [ExportProperty] {
        var properties = [ExportProperty("label", .string(MenuLabel.escaped(element.title)))]
        if element.has(.disabled) { properties.append(ExportProperty("enabled", .boolean(false))) }
        if element.has(.hidden) { properties.append(ExportProperty("visible", .boolean(false))) }
        if let icon = element.icon, !icon.isEmpty { properties.append(ExportProperty("icon-name", .string(icon))) }
        if let shortcut = element.shortcut, let accelerator = Accelerator(gtk: shortcut) {
            properties.append(ExportProperty("shortcut", accelerator.dbusmenuValue))
        }
        switch toggle ?? ExportToggle(element, parent: parent) {
        case .none:
            break
        case .checkmark:
            properties.append(ExportProperty("toggle-type", .string("checkmark")))
            properties.append(ExportProperty("toggle-state", .int32(ExportToggle.dbusmenuState(element.state))))
        case .radio:
            properties.append(ExportProperty("toggle-type", .string("radio")))
            properties.append(ExportProperty("toggle-state", .int32(ExportToggle.dbusmenuState(element.state))))
        }
        if element.isSubmenu { properties.append(ExportProperty("children-display", .string("submenu"))) }
        return properties
    }
}
