/// How an app's own items are drawn in a composed menu
/// (docs/DESIGN.md, "How an app's own items are drawn"), without changing
/// what the app stored:
///
/// - hidden items go, with everything under them; a menu left empty by
///   that goes too;
/// - a submenu inside a submenu becomes an inline section of its parent
///   (one level of submenus);
/// - destructive items (attribute `destructive`, or a menu with option
///   `destructive`) move to the end of their section, keeping their order.
///   A section here is the children of one parent (the top, a submenu or
///   an inline section), so a destructive item ends up after any inline
///   sections beside it.
///
/// Deferred elements stay where they are: the service fills them later.
/// Works on indices into the flat list (no tree of nodes, each element
/// copied once) so composing stays linear and cheap.
enum AppItems {
    /// `elements` arranged as above, parents before children and siblings
    /// in order; top-level elements get `parent`. Elements whose parent is
    /// not a menu earlier in the list are left out.
    static func arranged(_ elements: [MenuElement], under parent: String = "") -> [MenuElement] {
        var result: [MenuElement] = []
        append(elements, under: parent, to: &result)
        return result
    }

    /// `arranged(_:under:)` appended to `result`: each element copied once,
    /// straight into the menu being composed.
    static func append(_ elements: [MenuElement], under parent: String, to result: inout [MenuElement]) {
        guard !elements.isEmpty else { return }
        // Reading through the buffer borrows each element: no copies until
        // the one into the result.
        elements.withUnsafeBufferPointer { buffer in
            var layout = Layout(buffer)
            layout.dropHidden()
            layout.emit(under: parent, into: &result)
        }
    }

    /// The tree of a flat list as index links; `top` stands for the top level.
    private struct Layout {
        let elements: UnsafeBufferPointer<MenuElement>
        /// Parent index of each element: `top` for the top level, -1 when
        /// the element is left out.
        var parentOf: [Int]
        var firstChild: [Int]
        var lastChild: [Int]
        var nextSibling: [Int]
        var kept: [Bool]
        var top: Int { elements.count }

        init(_ elements: UnsafeBufferPointer<MenuElement>) {
            self.elements = elements
            let count = elements.count
            parentOf = Array(repeating: -1, count: count)
            firstChild = Array(repeating: -1, count: count + 1)
            lastChild = Array(repeating: -1, count: count + 1)
            nextSibling = Array(repeating: -1, count: count)
            kept = Array(repeating: false, count: count)
            resolveParents()
        }

        /// Finds each parent on the path to the previous element (where it
        /// is in a list written in tree order), else through an index of
        /// ids built only then; linear either way.
        private mutating func resolveParents() {
            var path: [Int] = []
            var indexOfId: [String: Int]?
            for index in elements.indices {
                var parent = -1
                if elements[index].parent.isEmpty {
                    parent = top
                    path.removeAll(keepingCapacity: true)
                } else {
                    while let last = path.last, elements[last].id != elements[index].parent { path.removeLast() }
                    if let last = path.last {
                        parent = last
                    } else {
                        if indexOfId == nil { indexOfId = firstIndices(before: index) }
                        if let found = indexOfId?[elements[index].parent], parentOf[found] != -1 {
                            parent = found
                            // Its ancestors are found through the index when
                            // needed: each element costs O(1), whatever the order.
                            path = [found]
                        }
                    }
                }
                if parent != top && (parent < 0 || elements[parent].kind != .menu) { parent = -1 }
                if parent >= 0 {
                    parentOf[index] = parent
                    kept[index] = true
                    if lastChild[parent] < 0 { firstChild[parent] = index } else { nextSibling[lastChild[parent]] = index }
                    lastChild[parent] = index
                    path.append(index)
                }
                if indexOfId != nil, indexOfId?[elements[index].id] == nil { indexOfId?[elements[index].id] = index }
            }
        }

        private func firstIndices(before end: Int) -> [String: Int] {
            var result: [String: Int] = [:]
            result.reserveCapacity(elements.count)
            for index in 0..<end where result[elements[index].id] == nil { result[elements[index].id] = index }
            return result
        }

        /// Hidden elements and what is under them go; then menus left with
        /// no children by that (children come after parents, so walking
        /// backwards sees every child before its parent).
        mutating func dropHidden() {
            var anyHidden = false
            for index in elements.indices where kept[index] {
                let parent = parentOf[index]
                if elements[index].has(.hidden) || (parent != top && !kept[parent]) {
                    kept[index] = false
                    anyHidden = true
                }
            }
            guard anyHidden else { return }
            var keptChildren = Array(repeating: 0, count: elements.count)
            for index in elements.indices.reversed() where kept[index] {
                if elements[index].kind == .menu && firstChild[index] >= 0 && keptChildren[index] == 0 {
                    kept[index] = false
                    continue
                }
                let parent = parentOf[index]
                if parent != top { keptChildren[parent] += 1 }
            }
        }

        /// The kept elements in tree order, destructive siblings last,
        /// submenus below a submenu turned into sections.
        func emit(under parent: String, into result: inout [MenuElement]) {
            result.reserveCapacity(result.count + elements.count)
            emitChildren(of: top, parentId: parent, underSubmenu: false, into: &result)
        }

        private func emitChildren(of container: Int, parentId: String, underSubmenu: Bool,
                                  into result: inout [MenuElement]) {
            var sawDestructive = false
            var child = firstChild[container]
            while child >= 0 {
                if kept[child] {
                    if isMovedLast(child) {
                        sawDestructive = true
                    } else {
                        emit(child, parentId: parentId, underSubmenu: underSubmenu, into: &result)
                    }
                }
                child = nextSibling[child]
            }
            guard sawDestructive else { return }
            child = firstChild[container]
            while child >= 0 {
                if kept[child] && isMovedLast(child) {
                    emit(child, parentId: parentId, underSubmenu: underSubmenu, into: &result)
                }
                child = nextSibling[child]
            }
        }

        private func isMovedLast(_ index: Int) -> Bool {
            elements[index].kind != .deferred && elements[index].isDestructive
        }

        private func emit(_ index: Int, parentId: String, underSubmenu: Bool, into result: inout [MenuElement]) {
            // The one copy of the element, changed only if needed, then moved
            // into the result.
            var element = elements[index]
            let isSubmenu = element.isSubmenu
            if element.parent != parentId { element.parent = parentId }
            if underSubmenu && isSubmenu { element.insert(.inline) }
            let id = element.id
            let hasChildren = element.kind == .menu && firstChild[index] >= 0
            result.append(element)
            if hasChildren {
                emitChildren(of: index, parentId: id, underSubmenu: underSubmenu || isSubmenu, into: &result)
            }
        }
    }
}
