import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// A presented menu as GLib's menu-model export (`org.gtk.Menus`) sees it,
/// with the actions its items name (`org.gtk.Actions`, see `GtkActions`).
///
/// Mapping from the composed elements:
/// - the top level is menu 0 of group 0; with the context's title, menu 0
///   holds one section labelled with it, and the top level is that section
///   (GTK draws a section label as a header); a section is a menu of its own in
///   the group of its parent, linked from an item with `:section`; a
///   submenu is menu 0 of a group of its own, linked with `:submenu`, so a
///   consumer subscribes to it only when it opens it (as GLib's exporter does);
/// - an item has `label` (underscores doubled), `action`
///   (`menubus.<name>`: consumers insert the `org.gtk.Actions` group at the
///   same path under the prefix `menubus`), `target` for radio items,
///   `icon` (a themed icon name) and `accel` (the GTK accelerator as given);
///   a section keeps its title as `label`; hidden items are left out.
package struct GMenuLayout: Equatable {
    /// The prefix under which consumers insert the action group.
    static let actionPrefix = "menubus"

    /// A (group, menu) pair.
    package struct MenuID: Hashable {
        package var group: UInt32
        package var menu: UInt32

        package var value: DBusValue { .structure([.uint32(group), .uint32(menu)]) }
    }

    package typealias Item = [ExportProperty]

    /// Items of every menu.
    package private(set) var menus: [MenuID: [Item]] = [:]
    /// The menus of each group, in the order they were reached.
    package private(set) var groups: [UInt32: [UInt32]] = [:]
    private(set) var actions = GtkActions()

    /// The key of the section that holds the top level under a title (no element id has a `/`).
    static let titleSectionKey = "/title"

    /// Maps `elements`, numbering new groups, menus and items in `ids`;
    /// the actions of `previous` no item names any more stay, retired
    /// (`GtkActions.keepRetired`).
    init(_ elements: [MenuElement], title: String? = nil, ids: inout ExportIDs, previous: GMenuLayout? = nil) {
        let tree = ExportTree(elements)
        actions = GtkActions(capacity: elements.count)
        menus.reserveCapacity(8)
        let root = MenuID(group: 0, menu: 0)
        if let title, !title.isEmpty {
            let top = MenuID(group: 0, menu: ids.menu(forSection: GMenuLayout.titleSectionKey))
            groups[0] = [0]
            menus[root] = [[ExportProperty("label", .string(MenuLabel.escaped(title))), ExportProperty(":section", top.value)]]
            fill(top, container: "", parent: nil, tree: tree, ids: &ids)
        } else {
            fill(root, container: "", parent: nil, tree: tree, ids: &ids)
        }
        if let previous { actions.keepRetired(from: previous.actions) }
        // Numbers of elements long gone are forgotten past the bound, as in
        // the dbusmenu layout, so an app that keeps sending new ids cannot
        // grow a presentation read only over org.gtk.Menus.
        ids.retain(Set(elements.lazy.map(\.id)).union([GMenuLayout.titleSectionKey]))
    }

    /// `a(uuaa{sv})` rows of `Start` for `groups`: each group's menus once,
    /// however often it was asked for; unknown groups contribute nothing.
    func startRows(_ requested: [UInt32]) -> DBusValue {
        var rows: [DBusValue] = []
        var seen: Set<UInt32> = []
        for group in requested where seen.insert(group).inserted {
            for menu in groups[group] ?? [] {
                let id = MenuID(group: group, menu: menu)
                rows.append(.structure([.uint32(group), .uint32(menu), GMenuLayout.itemsValue(menus[id] ?? [])]))
            }
        }
        return .array("(uuaa{sv})", rows)
    }

    /// `(uuuuaa{sv})` rows of `Changed` taking `old` to this export, for the
    /// menus of `subscribed` groups whose items differ, as GLib's exporter
    /// reports an edit: one row per changed menu covering only the items
    /// between the unchanged ones at its start and its end, so an item
    /// (and the section or submenu it links) that did not change is never
    /// removed and added again. A menu new in a subscribed group (a new
    /// section) comes whole; a menu no longer linked gets no row (the link
    /// to it went).
    package func changes(from old: GMenuLayout, in subscribed: Set<UInt32>) -> [DBusValue] {
        var rows: [DBusValue] = []
        for group in subscribed.sorted() {
            for menu in groups[group] ?? [] {
                let id = MenuID(group: group, menu: menu)
                let before = old.menus[id] ?? [], after = menus[id] ?? []
                guard before != after else { continue }
                let change = GMenuLayout.smallestChange(before, after)
                rows.append(.structure([.uint32(group), .uint32(menu), .uint32(UInt32(change.position)),
                                        .uint32(UInt32(change.removed)),
                                        GMenuLayout.itemsValue(Array(after[change.added]))]))
            }
        }
        return rows
    }

    /// `(uuuuaa{sv})` rows of `Changed` removing every item of every menu
    /// of `subscribed` groups: what consumers are told when the menu closes.
    func emptyingRows(in subscribed: Set<UInt32>) -> [DBusValue] {
        var rows: [DBusValue] = []
        for group in subscribed.sorted() {
            for menu in groups[group] ?? [] {
                let count = menus[MenuID(group: group, menu: menu)]?.count ?? 0
                guard count > 0 else { continue }
                rows.append(.structure([.uint32(group), .uint32(menu), .uint32(0), .uint32(UInt32(count)),
                                        GMenuLayout.itemsValue([])]))
            }
        }
        return rows
    }

    /// The one contiguous replacement taking `before` to `after`: its
    /// position, how many items it removes, and the range of `after` it adds.
    static func smallestChange(_ before: [Item], _ after: [Item]) -> (position: Int, removed: Int, added: Range<Int>) {
        var prefix = 0
        while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < before.count - prefix, suffix < after.count - prefix,
              before[before.count - 1 - suffix] == after[after.count - 1 - suffix] { suffix += 1 }
        return (prefix, before.count - prefix - suffix, prefix..<(after.count - suffix))
    }

    static func itemsValue(_ items: [Item]) -> DBusValue {
        .array("a{sv}", items.map { $0.dictionary() })
    }

    package func items(_ id: MenuID) -> [Item]? {
        menus[id]
    }

    private mutating func fill(_ id: MenuID, container: String, parent: MenuElement?,
                               tree: ExportTree, ids: inout ExportIDs) {
        groups[id.group, default: []].append(id.menu)
        var items: [Item] = []
        for element in tree.children(of: container) where GMenuLayout.isShown(element) {
            if element.isSection {
                let section = MenuID(group: id.group, menu: ids.menu(forSection: element.id))
                items.append(item(element, parent: parent, link: section, ids: &ids))
                fill(section, container: element.id, parent: element, tree: tree, ids: &ids)
            } else if element.isSubmenu {
                let submenu = MenuID(group: ids.group(forSubmenu: element.id), menu: 0)
                items.append(item(element, parent: parent, link: submenu, ids: &ids))
                fill(submenu, container: element.id, parent: element, tree: tree, ids: &ids)
            } else {
                items.append(item(element, parent: parent, link: nil, ids: &ids))
            }
        }
        menus[id] = items
    }

    /// The item showing `element`, a child of `parent`: a link to `link`,
    /// the menu of a section or submenu, or an action's item, whose action
    /// it adds.
    private mutating func item(_ element: MenuElement, parent: MenuElement?, link: MenuID?,
                               ids: inout ExportIDs) -> Item {
        if let link, element.isSection {
            var item: Item = []
            if let title = element.title, !title.isEmpty {
                item.append(ExportProperty("label", .string(MenuLabel.escaped(title))))
            }
            item.append(ExportProperty(":section", link.value))
            return item
        }
        if let link {
            var item: Item = [ExportProperty("label", .string(MenuLabel.escaped(element.title)))]
            if let icon = element.icon, !icon.isEmpty { item.append(ExportProperty("icon", .string(icon))) }
            item.append(ExportProperty(":submenu", link.value))
            return item
        }
        let action = actions.add(element, parent: parent, ids: &ids)
        var item: Item = [ExportProperty("label", .string(MenuLabel.escaped(element.title))),
                          ExportProperty("action", .string(GMenuLayout.actionPrefix + "." + action.name))]
        if let target = action.target { item.append(ExportProperty("target", target)) }
        if let icon = element.icon, !icon.isEmpty { item.append(ExportProperty("icon", .string(icon))) }
        if let shortcut = element.shortcut, !shortcut.isEmpty { item.append(ExportProperty("accel", .string(shortcut))) }
        return item
    }

    // MARK: Patching

    /// `previous`, the export of the revision before under the same
    /// `title`, with the items (and actions) of `patch`'s changed elements
    /// shown anew: what mapping the whole menu would give. Nil when a
    /// changed element is a radio item (its action is its menu's, shared
    /// with its siblings), names another action than before, or is not
    /// where the patch says.
    static func patched(_ previous: GMenuLayout, _ patch: ElementPatch, title: String?,
                        ids: inout ExportIDs) -> GMenuLayout? {
        var export = previous
        for index in patch.changed {
            let element = patch.elements[index]
            // Nor is anything inside an element not shown.
            guard isShown(element), !patch.hasAncestor(of: index, where: { !isShown($0) }) else { continue }
            let parent = patch.parent(of: index)
            if element.kind == .action, ids.toggle(element, parent: parent) == .radio { return nil }
            guard let menu = menuID(holding: index, patch, title: title, ids: ids),
                  var items = export.menus[menu] else { return nil }
            let position = patch.elements[..<index].count { $0.parent == element.parent && isShown($0) }
            var link: MenuID?
            if element.isSection {
                guard let section = ids.existingMenu(forSection: element.id) else { return nil }
                link = MenuID(group: menu.group, menu: section)
            } else if element.isSubmenu {
                guard let group = ids.existingGroup(forSubmenu: element.id) else { return nil }
                link = MenuID(group: group, menu: 0)
            }
            guard position < items.count else { return nil }
            let item = export.item(element, parent: parent, link: link, ids: &ids)
            // An item that names another action or menu now (a toggle kept
            // as radio from an earlier menu, become a checkmark) is mapped in full.
            for name in GMenuLayout.linkNames where item.value(named: name) != items[position].value(named: name) {
                return nil
            }
            items[position] = item
            export.menus[menu] = items
        }
        return export
    }

    /// Whether `element` has an item among its parent's: hidden elements,
    /// and deferred ones left unresolved, have none.
    private static func isShown(_ element: MenuElement) -> Bool {
        element.kind != .deferred && !element.has(.hidden)
    }

    /// What ties an item to an action or a menu: a patch never changes it.
    private static let linkNames = ["action", "target", ":section", ":submenu"]

    /// The menu whose items hold the element at `index`, from the numbers
    /// already handed out; nil when one is missing.
    private static func menuID(holding index: Int, _ patch: ElementPatch, title: String?, ids: ExportIDs) -> MenuID? {
        if patch.elements[index].parent.isEmpty {
            guard let title, !title.isEmpty else { return MenuID(group: 0, menu: 0) }
            return ids.existingMenu(forSection: titleSectionKey).map { MenuID(group: 0, menu: $0) }
        }
        guard let container = patch.parentIndex(of: index) else { return nil }
        let element = patch.elements[container]
        if element.isSection {
            guard let outer = menuID(holding: container, patch, title: title, ids: ids),
                  let menu = ids.existingMenu(forSection: element.id) else { return nil }
            return MenuID(group: outer.group, menu: menu)
        }
        return ids.existingGroup(forSubmenu: element.id).map { MenuID(group: $0, menu: 0) }
    }
}
