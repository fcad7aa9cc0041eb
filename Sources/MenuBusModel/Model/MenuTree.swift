/// A menu as a tree of `MenuNode`s, built from and flattened back to the
/// flat wire form.
struct MenuTree: Hashable, Sendable {
    /// The top-level nodes, in display order.
    var roots: [MenuNode]

    init(roots: [MenuNode] = []) {
        self.roots = roots
    }

    /// Builds the tree of a flat list whose parents come before their
    /// children. Throws when a parent is missing, later in the list, or not
    /// a menu; the other rules are `ElementValidation`'s.
    static func build(from flat: [MenuElement], field: String = "items") throws(ModelError) -> MenuTree {
        var faultIndex: Int?
        let tree = MenuTree(flat) { index in
            faultIndex = index
            return false
        }
        guard let index = faultIndex else { return tree }
        // ElementValidation words every parent fault (forward reference,
        // cycle, parent not a menu); take its sentence.
        let problem = ElementValidation.problems(in: flat, field: field, allowReserved: true)
            .first { $0.index == index && $0.error.field.hasSuffix(".parent") }
        throw problem?.error ?? .invalid("\(field)[\(index)].parent",
                                         "parent \(ModelError.quoted(flat[index].parent)) is not a menu earlier in the list")
    }

    /// Builds the tree of a flat list, leaving out every element whose parent
    /// is not a menu earlier in the list, and everything under it. For
    /// composing from lists that were validated when they were stored.
    init(lenient flat: [MenuElement]) {
        self.init(flat) { _ in true }
    }

    /// The one tree builder: `orphan` hears of each element whose parent
    /// cannot be found and answers whether to go on (skipping it).
    private init(_ flat: [MenuElement], orphan: (Int) -> Bool) {
        var indexOfId: [String: Int] = [:]
        indexOfId.reserveCapacity(flat.count)
        var children = [[Int]](repeating: [], count: flat.count)
        var roots: [Int] = []
        for (index, element) in flat.enumerated() {
            if element.parent.isEmpty {
                roots.append(index)
            } else if let parent = indexOfId[element.parent], flat[parent].kind == .menu {
                children[parent].append(index)
            } else {
                guard orphan(index) else { break }
                continue
            }
            if indexOfId[element.id] == nil { indexOfId[element.id] = index }
        }
        func node(_ index: Int) -> MenuNode {
            MenuNode(flat[index], children: children[index].map(node))
        }
        self.init(roots: roots.map(node))
    }

    /// The flat form: parents before children, siblings in order, each
    /// element's `parent` set to the node it is under.
    ///
    /// - Parameter parent: the parent of the top-level nodes, `""` at the top.
    func flatten(under parent: String = "") -> [MenuElement] {
        var result: [MenuElement] = []
        Self.append(roots, parent: parent, to: &result)
        return result
    }

    private static func append(_ nodes: [MenuNode], parent: String, to result: inout [MenuElement]) {
        for node in nodes {
            var element = node.element
            element.parent = parent
            result.append(element)
            append(node.children, parent: element.id, to: &result)
        }
    }
}
