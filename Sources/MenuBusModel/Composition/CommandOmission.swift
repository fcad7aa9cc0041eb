/// Leaves out of a composed menu the standard commands a presenter's
/// toolkit already shows beside it (GTK 4 keeps its own Cut, Copy, Paste,
/// Delete and Select All in a text widget's menu and appends a presented
/// menu after them): `PresentMenu`'s `omit-commands`.
///
/// - every element whose `command` is one of them goes, with everything
///   under it: MenuBus's own items and an app's item that names the
///   command alike;
/// - then every menu (a section or a submenu, such as Format) left with no
///   children by that goes too, up to the top. A menu that was empty
///   before stays as it was.
///
/// Applied to the menu as shown, deferred elements resolved, so content an
/// app provides later is left out the same way.
package enum CommandOmission {
    /// `elements` (parents before children) without the items of `commands`,
    /// as above; in order, each element otherwise unchanged.
    package static func apply(_ commands: Set<StandardCommand>, to elements: [MenuElement]) -> [MenuElement] {
        guard !commands.isEmpty,
              elements.contains(where: { $0.command.map(commands.contains) ?? false }) else { return elements }
        // Forward: the omitted items and what is under them.
        var removed = Set<String>()
        var kept = Array(repeating: true, count: elements.count)
        var hadChildren = Set<String>()
        for (index, element) in elements.enumerated() {
            if !element.parent.isEmpty { hadChildren.insert(element.parent) }
            if removed.contains(element.parent) || element.command.map(commands.contains) == true {
                removed.insert(element.id)
                kept[index] = false
            }
        }
        // Backward (children come after their parents): a menu that had
        // children and keeps none goes, and no longer counts for its parent.
        var keptChildren: [String: Int] = [:]
        for index in elements.indices.reversed() where kept[index] {
            let element = elements[index]
            if element.kind == .menu && hadChildren.contains(element.id) && keptChildren[element.id, default: 0] == 0 {
                kept[index] = false
                continue
            }
            if !element.parent.isEmpty { keptChildren[element.parent, default: 0] += 1 }
        }
        return elements.indices.filter { kept[$0] }.map { elements[$0] }
    }
}
