/// An element with its children: the tree form composition works on.
package struct MenuNode: Hashable, Sendable {
    package var element: MenuElement
    package var children: [MenuNode]

    package init(_ element: MenuElement, children: [MenuNode] = []) {
        self.element = element
        self.children = children
    }
}
