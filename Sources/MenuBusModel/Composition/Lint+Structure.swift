extension Lint {
    /// Parents, children and submenu depth of a flat list that may break
    /// the rules: an element whose parent is not a menu earlier in the list
    /// is left out, with everything under it.
    struct Structure {
        package let elements: [MenuElement]
        /// Index of each element's parent; -1 at the top, nil when left out.
        private(set) var parentIndex: [Int?]
        /// Submenus (non-inline menus) above each element.
        private(set) var submenuDepth: [Int]
        private var childLists: [[Int]]
        private var topLevel: [Int] = []
        /// Whether each element and all its ancestors are not hidden.
        private var visible: [Bool]

        init(_ elements: [MenuElement]) {
            self.elements = elements
            parentIndex = Array(repeating: nil, count: elements.count)
            submenuDepth = Array(repeating: 0, count: elements.count)
            childLists = Array(repeating: [], count: elements.count)
            visible = Array(repeating: false, count: elements.count)
            var indexOfId: [String: Int] = [:]
            for (index, element) in elements.enumerated() {
                if indexOfId[element.id] == nil { indexOfId[element.id] = index }
                let hidden = element.has(.hidden)
                if element.parent.isEmpty {
                    parentIndex[index] = -1
                    topLevel.append(index)
                    visible[index] = !hidden
                } else if let parent = indexOfId[element.parent], parent < index,
                          parentIndex[parent] != nil, elements[parent].kind == .menu {
                    parentIndex[index] = parent
                    childLists[parent].append(index)
                    submenuDepth[index] = submenuDepth[parent] + (elements[parent].isSubmenu ? 1 : 0)
                    visible[index] = visible[parent] && !hidden
                }
            }
        }

        /// -1 for the top level, then every menu, in list order.
        package var containers: [Int] {
            [-1] + elements.indices.filter { parentIndex[$0] != nil && elements[$0].kind == .menu }
        }

        package func children(of container: Int) -> [Int] {
            container < 0 ? topLevel : childLists[container]
        }

        func isVisible(_ index: Int) -> Bool { visible[index] }

        /// The visible actions and submenus shown at the level of
        /// `container` (-1: the top), through its inline sections.
        func levelItems(of container: Int) -> [Int] {
            var result: [Int] = []
            var stack = Array(children(of: container).reversed())
            while let index = stack.popLast() {
                guard visible[index] else { continue }
                if elements[index].isSection {
                    stack.append(contentsOf: childLists[index].reversed())
                } else if elements[index].kind == .action || elements[index].isSubmenu {
                    result.append(index)
                }
            }
            return result
        }
    }
}
