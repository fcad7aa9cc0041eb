import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// A composed flat menu (parents before children) indexed by parent, the
/// shape both exporters walk.
struct ExportTree {
    let elements: [MenuElement]
    /// Indices into `elements` of each parent's children, in order; `""` is the top.
    private var children: [String: [Int]] = [:]

    init(_ elements: [MenuElement]) {
        self.elements = elements
        children.reserveCapacity(8)
        for (index, element) in elements.enumerated() {
            children[element.parent, default: []].append(index)
        }
    }

    /// The children of `parent` (`""` for the top) that the exports show:
    /// deferred elements left unresolved are skipped.
    func children(of parent: String) -> [MenuElement] {
        guard let indices = children[parent] else { return [] }
        return indices.compactMap { elements[$0].kind == .deferred ? nil : elements[$0] }
    }
}
