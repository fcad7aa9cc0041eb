/// An element with its children: the tree form composition works on.
struct MenuNode: Hashable, Sendable {
    var element: MenuElement
    var children: [MenuNode]

    init(_ element: MenuElement, children: [MenuNode] = []) {
        self.element = element
        self.children = children
    }
}
