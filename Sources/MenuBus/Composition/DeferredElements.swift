/// Stands in for deferred elements (UIKit's `UIDeferredMenuElement`) in a
/// composed menu: what the app provided takes the element's place; while
/// nothing has arrived a disabled "Loading…" item stands there; an element
/// whose provider failed or timed out disappears.
enum DeferredElements {
    /// Title of the stand-in item.
    static let loadingTitle = "Loading…"

    struct Resolution: Equatable {
        var elements: [MenuElement]
        /// Deferred elements that have neither content nor a failure yet, in menu order.
        var waiting: [MenuElement]
    }

    /// Replaces every deferred element of `composed`.
    /// - Parameters:
    ///   - provided: what arrived for an element id; its top level (parent "")
    ///     goes where the deferred element was, under the same parent.
    ///   - failed: element ids whose provider failed or timed out.
    static func resolve(_ composed: [MenuElement], provided: [String: [MenuElement]],
                        failed: Set<String>) -> Resolution {
        guard composed.contains(where: { $0.kind == .deferred }) else {
            return Resolution(elements: composed, waiting: [])
        }
        var result: [MenuElement] = []
        result.reserveCapacity(composed.count)
        var waiting: [MenuElement] = []
        var ids = Set(composed.lazy.filter { $0.kind != .deferred }.map(\.id))
        var removed: Set<String> = []
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
                // Ids already in the menu win; a provided element that reuses
                // one is dropped with its children, never shown twice.
                var dropped: Set<String> = []
                for item in content {
                    if dropped.contains(item.parent) || ids.contains(item.id) {
                        dropped.insert(item.id)
                        continue
                    }
                    ids.insert(item.id)
                    var placed = item
                    if placed.parent.isEmpty { placed.parent = element.parent }
                    result.append(placed)
                }
            } else {
                waiting.append(element)
                result.append(MenuElement(id: element.id, parent: element.parent, kind: .action,
                                          title: loadingTitle, attributes: [.disabled]))
            }
        }
        return Resolution(elements: result, waiting: waiting)
    }
}
