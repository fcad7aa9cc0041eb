/// Checks a menu against the design rules (DESIGN.md, "Context menu
/// rules") and reports, without changing anything.
///
/// Errors: every fault `ElementValidation` finds (missing or later parent,
/// bad or reserved id, duplicate ids, missing title…). Warnings: a submenu
/// inside a submenu, more than three sections in one menu, icons on some
/// siblings but not all, an "Open" item (context menus), keyboard
/// shortcuts (context menus), a destructive item before a plain sibling,
/// more than one `on` item in a single-selection menu, titles not in title
/// style. Info: an action whose title does not start like a verb.
///
/// Hidden elements count only for the rules about single elements (their
/// ids, titles); the rules about how a menu looks skip them, and a hidden
/// item may carry a shortcut. An element under a parent that cannot be
/// found is reported as an error and, with everything under it, skipped by
/// the rules about how a menu looks.
enum Lint {
    static func check(kind: MenuKind, elements: [MenuElement]) -> [LintFinding] {
        var findings: [(index: Int, finding: LintFinding)] = []
        func add(_ index: Int, _ severity: LintFinding.Severity, _ message: String) {
            let id = elements.indices.contains(index) ? elements[index].id : ""
            findings.append((index, LintFinding(severity: severity, elementId: id, message: message)))
        }

        for problem in ElementValidation.problems(in: elements) {
            add(problem.index ?? -1, .error, sentence(problem.error))
        }

        let structure = Structure(elements)
        for (index, element) in elements.enumerated() {
            checkElement(element, at: index, kind: kind, structure: structure, add: add)
        }
        for container in structure.containers where container < 0 || structure.isVisible(container) {
            checkSiblings(of: container, structure: structure, add: add)
        }

        // Stable: by element, then in rule order.
        return findings.enumerated()
            .sorted { ($0.element.index, $0.offset) < ($1.element.index, $1.offset) }
            .map(\.element.finding)
    }

    /// Rules about one element.
    private static func checkElement(_ element: MenuElement, at index: Int, kind: MenuKind, structure: Structure,
                                     add: (Int, LintFinding.Severity, String) -> Void) {
        let name = quoted(element.title ?? element.id)
        let visible = structure.isVisible(index)
        if visible && element.isSubmenu && structure.submenuDepth[index] > 0 {
            add(index, .warning, "Submenu \(name) is inside another submenu; keep to one level of submenus (MenuBus draws it as an inline section of its parent).")
        }
        if visible && kind == .context && element.kind == .action, let title = element.title,
           TitleStyle.isBareOpen(title) {
            add(index, .warning, "An \(quoted(title)) item repeats what choosing the item itself already does; leave it out of the context menu.")
        }
        if visible && kind == .context, let shortcut = element.shortcut {
            add(index, .warning, "\(name) has the keyboard shortcut \(quoted(shortcut)); context menus do not show shortcuts, so put it in the app's main menu instead.")
        }
        if let title = element.title {
            if let word = TitleStyle.lowerCaseWord(in: title) {
                add(index, .warning, "Title \(quoted(title)) is not in title style: capitalize \(quoted(String(word))) (short words such as 'to', 'and', 'of' stay lower-case after the first word).")
            } else if element.kind == .action && element.command == nil && TitleStyle.startsWithNonVerb(title) {
                add(index, .info, "Title \(quoted(title)) does not start with a verb; say what the item does, as in 'Copy Link' or 'Add to Photos'.")
            }
        }
    }

    /// Rules about the children of one parent (index -1: the top level).
    private static func checkSiblings(of container: Int, structure: Structure,
                                      add: (Int, LintFinding.Severity, String) -> Void) {
        let elements = structure.elements
        let children = structure.children(of: container).filter { !elements[$0].has(.hidden) }
        guard !children.isEmpty else { return }
        let containerName = container < 0 ? "The menu" : "Menu \(quoted(elements[container].title ?? elements[container].id))"

        // Sections: each inline section, and each run of other items between them.
        if container < 0 || elements[container].isSubmenu {
            var sections = 0
            var inRun = false
            for child in children {
                if elements[child].isSection {
                    sections += 1
                    inRun = false
                } else if !inRun {
                    sections += 1
                    inRun = true
                }
            }
            if sections > 3 {
                add(container, .warning, "\(containerName) has \(sections) sections; more than three makes it hard to scan, so merge related sections or move some items into a submenu.")
            }
        }

        // Icons on some siblings but not all.
        let items = children.filter { elements[$0].kind == .action || elements[$0].isSubmenu }
        let withIcon = items.filter { elements[$0].icon != nil }
        if !withIcon.isEmpty && withIcon.count < items.count,
           let missing = items.first(where: { elements[$0].icon == nil }) {
            add(missing, .warning, "\(quoted(elements[missing].title ?? elements[missing].id)) has no icon while \(withIcon.count) of its \(items.count) siblings have one; give every item in the group an icon, or none.")
        }

        // Destructive items last.
        var sawPlainAfter = false
        for child in children.reversed() {
            let element = elements[child]
            let destructive = element.kind != .deferred && element.isDestructive
            if destructive && sawPlainAfter {
                add(child, .warning, "Destructive item \(quoted(element.title ?? element.id)) is not last in its section; put destructive items at the end (MenuBus moves it there).")
            }
            if !destructive { sawPlainAfter = true }
        }

        // Single selection.
        if container >= 0 && elements[container].has(.singleSelection) {
            let on = children.filter { elements[$0].state == .on }.count
            if on > 1 {
                add(container, .warning, "\(containerName) is single-selection but \(on) of its items are on; turn on at most one.")
            }
        }
    }

    /// "Parent 'x' comes later, … (items[3].parent)."
    private static func sentence(_ error: ModelError) -> String {
        let message = error.message.prefix(1).uppercased() + error.message.dropFirst()
        return "\(message) (\(error.field))."
    }

    private static func quoted(_ text: String) -> String {
        ModelError.quoted(text)
    }
}
