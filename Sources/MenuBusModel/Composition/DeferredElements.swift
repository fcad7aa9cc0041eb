/// Stands in for deferred elements (UIKit's `UIDeferredMenuElement`) in a
/// composed menu: what the app provided takes the element's place; while
/// nothing has arrived a disabled "Loading…" item stands there; an element
/// whose provider failed or timed out disappears.
package enum DeferredElements {
    /// Title of the stand-in item.
    package static let loadingTitle = "Loading…"

    package struct Resolution: Equatable {
        package var elements: [MenuElement]
        /// Deferred elements that have neither content nor a failure yet, in menu order.
        package var waiting: [MenuElement]
    }

    /// Replaces every deferred element of `composed`.
    /// - Parameters:
    ///   - provided: what arrived for an element id; its top level (parent "")
    ///     goes where the deferred element was, under the same parent, drawn
    ///     by the same rules as the app's own items (hidden items go, one
    ///     level of submenus, destructive items last).
    ///   - failed: element ids whose provider failed or timed out.
    /// Content that would take the menu past `Limits.maxElementsPerMenu`
    /// counts as failed: a menu never grows past what a client may publish.
    package static func resolve(_ composed: [MenuElement], provided: [String: [MenuElement]],
                        failed: Set<String>, loadingTitle: String = loadingTitle) -> Resolution {
        guard composed.contains(where: { $0.kind == .deferred }) else {
            return Resolution(elements: withoutEmptyMenus(composed), waiting: [])
        }
        var result: [MenuElement] = []
        result.reserveCapacity(composed.count)
        var waiting: [MenuElement] = []
        // Every id of the composed menu, deferred ones too, is taken.
        var ids = Set(composed.lazy.map(\.id))
        var removed: Set<String> = []
        var budget = Limits.maxElementsPerMenu - composed.count
        for element in composed {
            if removed.contains(element.parent) {
                removed.insert(element.id)
                continue
            }
            guard element.kind == .deferred else {
                result.append(element)
                continue
            }
            if failed.contains(element.id) {
                removed.insert(element.id)
            } else if let content = provided[element.id] {
                let arranged = AppItems.arranged(content, under: element.parent)
                guard arranged.count <= budget else {
                    removed.insert(element.id)
                    continue
                }
                // Ids already in the menu win; a provided element that reuses
                // one is dropped with its children, never shown twice.
                var dropped: Set<String> = []
                for item in arranged {
                    if item.kind == .deferred || dropped.contains(item.parent) || ids.contains(item.id) {
                        dropped.insert(item.id)
                        continue
                    }
                    ids.insert(item.id)
                    result.append(item)
                    budget -= 1
                }
            } else {
                waiting.append(element)
                result.append(MenuElement(id: element.id, parent: element.parent, kind: .action,
                                          title: loadingTitle, attributes: [.disabled]))
            }
        }
        return Resolution(elements: withoutEmptyMenus(result), waiting: waiting)
    }

    /// The menu without submenus and sections that show nothing (no child
    /// but hidden ones, after deferred content failed or an app published
    /// one empty): a chevron that opens on nothing is never served.
    package static func withoutEmptyMenus(_ elements: [MenuElement]) -> [MenuElement] {
        guard elements.contains(where: { $0.kind == .menu }) else { return elements }
        var shown: [String: Int] = [:]
        var removed = Set<Int>()
        // Children come after their parents: from the end, each menu knows
        // what of it is left.
        for index in elements.indices.reversed() {
            let element = elements[index]
            if element.kind == .menu, shown[element.id, default: 0] == 0 {
                removed.insert(index)
                continue
            }
            if !element.has(.hidden) { shown[element.parent, default: 0] += 1 }
        }
        guard !removed.isEmpty else { return elements }
        var gone = Set<String>()
        var kept: [MenuElement] = []
        kept.reserveCapacity(elements.count - removed.count)
        for (index, element) in elements.enumerated() {
            if removed.contains(index) || gone.contains(element.parent) {
                gone.insert(element.id)
                continue
            }
            kept.append(element)
        }
        return kept
    }
}
