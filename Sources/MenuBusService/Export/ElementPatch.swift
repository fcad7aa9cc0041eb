import MenuBusModel

/// A revision that differs from the one before only in what some items
/// show (a label, an icon, a shortcut, a state, being enabled): the same
/// elements in the same order, with the same ids, parents, kinds, menu
/// options, commands and visibility, under the same title. The exports
/// then patch the mapping consumers hold instead of mapping the whole menu
/// again (`MenuExport.patched`), as a live menu mostly changes.
///
/// A protocol that cannot tell a patch from its structure alone (a radio
/// choice, whose action is shared; a toggle a consumer fixes at creation)
/// declines it and maps the menu in full: a patch is only ever a faster way
/// to the same mapping (`ExportPatchTests` holds the two to each other).
struct ElementPatch {
    /// The new revision's elements.
    let elements: [MenuElement]
    /// Indices into `elements` of those that changed, in order.
    let changed: [Int]

    /// Changed elements a patch takes at most: each is placed by a walk
    /// of the list, so more are mapped in full, in one walk.
    static let maxChanged = 32

    /// Whether `element` differs from `other` at most in what its item
    /// shows: title, subtitle, icon, shortcut, state and attributes other
    /// than `hidden`.
    static func sameStructure(_ element: MenuElement, _ other: MenuElement) -> Bool {
        element.id == other.id && element.parent == other.parent && element.kind == other.kind
            && element.optionBits == other.optionBits && element.command == other.command
            && element.has(.hidden) == other.has(.hidden)
    }

    /// The patch taking `old` (under `oldTitle`) to `new`, or nil when the
    /// structure changed.
    init?(from old: [MenuElement], title oldTitle: String?, to new: [MenuElement], title newTitle: String?) {
        guard old.count == new.count, oldTitle == newTitle else { return nil }
        var changed: [Int] = []
        for index in new.indices where old[index] != new[index] {
            guard ElementPatch.sameStructure(new[index], old[index]), changed.count < ElementPatch.maxChanged else { return nil }
            changed.append(index)
        }
        elements = new
        self.changed = changed
    }

    /// The index of the parent of the element at `index`, searched before
    /// it (parents come before their children); nil at the top.
    func parentIndex(of index: Int) -> Int? {
        let parent = elements[index].parent
        guard !parent.isEmpty else { return nil }
        return elements[..<index].lastIndex { $0.id == parent }
    }

    func parent(of index: Int) -> MenuElement? {
        parentIndex(of: index).map { elements[$0] }
    }

    /// Whether an ancestor of the element at `index` matches `test`.
    func hasAncestor(of index: Int, where test: (MenuElement) -> Bool) -> Bool {
        var position = parentIndex(of: index)
        while let current = position {
            if test(elements[current]) { return true }
            position = parentIndex(of: current)
        }
        return false
    }
}
