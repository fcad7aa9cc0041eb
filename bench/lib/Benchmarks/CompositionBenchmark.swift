import MenuBusModel
/// A fixed, representative workload for timing composition from outside
/// the library (a benchmark tool, `swift test` in release): the library
/// itself reads no clock.
package enum CompositionBenchmark {
    /// Composes the edit menu (`.edit`), the context menu (`.context`) or
    /// both (nil) for a rich text field with `itemCount` app items (sections,
    /// submenus, a hidden and a destructive item in every ten) and four
    /// providers, `iterations` times. Returns the number of elements
    /// composed, so the work cannot be optimized away.
    package static func run(_ kind: MenuKind? = nil, itemCount: Int = 50, iterations: Int = 1) -> Int {
        let workload = Workload(itemCount: itemCount)
        var total = 0
        for _ in 0..<max(0, iterations) {
            if kind != .context {
                total &+= EditMenu.compose(context: workload.context, selection: workload.selection,
                                           undo: workload.undo, providers: workload.providers,
                                           appItems: workload.items).count
            }
            if kind != .edit {
                total &+= ContextMenu.compose(context: workload.context, items: workload.items,
                                              providers: workload.providers, selection: workload.selection).count
            }
        }
        return total
    }

    /// The inputs, built once.
    package struct Workload {
        package let context = ContextInfo(kind: .text, contentTypes: ["text/plain", "text/html"], editable: true,
                                  hasContent: true, richText: true, document: "doc")
        package let selection = Selection(kind: .range, length: 12, text: "hello world!", attributes: [.bold],
                                  pasteboardTypes: ["text/plain;charset=utf-8", "text/html"])
        package let undo = UndoSummary(canUndo: true, canRedo: true, undoActionName: "Typing", redoActionName: nil)
        package let providers = [
            ProviderInfo(id: "org.example.Dictionary", title: "Look Up", role: .lookup),
            ProviderInfo(id: "org.example.Translate", title: "Translate", role: .translate),
            ProviderInfo(id: "org.example.Share", title: "Share", role: .share),
            ProviderInfo(id: "org.example.Upper", title: "Make Upper Case", returnsText: true, requiresEditable: true),
        ]
        package let items: [MenuElement]

        package init(itemCount: Int) {
            var items: [MenuElement] = []
            items.reserveCapacity(itemCount)
            var parent = ""
            for index in 0..<max(0, itemCount) {
                let id = "item.\(index)"
                switch index % 10 {
                case 0:
                    items.append(MenuElement(id: id, kind: .menu, options: [.inline]))
                    parent = id
                case 5:
                    items.append(MenuElement(id: id, parent: parent, kind: .menu, title: "More \(index)"))
                    parent = id
                case 7:
                    items.append(MenuElement(id: id, parent: parent, title: "Remove \(index)", attributes: [.destructive]))
                case 9:
                    items.append(MenuElement(id: id, parent: parent, title: "Secret \(index)", attributes: [.hidden]))
                default:
                    items.append(MenuElement(id: id, parent: parent, title: "Action \(index)", icon: "document-new"))
                }
            }
            self.items = items
        }
    }
}
