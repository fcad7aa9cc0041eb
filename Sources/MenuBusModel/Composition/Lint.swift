/// Checks a menu against the design rules (docs/DESIGN.md, "Lint rules")
/// and reports, without changing anything.
///
/// Errors: every fault `ElementValidation` finds (missing or later parent,
/// bad or reserved id, duplicate ids, missing title…). Warnings: a submenu
/// or section with nothing to show, a submenu inside a submenu, more than three sections in one menu, icons on some
/// actions but not all (submenus need no glyph), an "Open" item (context
/// menus), keyboard shortcuts (context menus), edit commands in a context
/// menu (an item offers one or the other), a destructive item before a
/// plain sibling, more than one `on` item in a single-selection menu, more
/// than `maxItemsPerLevel` of the app's items at one level, a command or a
/// title offered twice, an app item that repeats a system command MenuBus
/// adds (its command, title or accelerator), titles not in title style.
/// Info: an action whose title does not start like a verb.
///
/// MenuBus's own elements (`menubus:` ids) do not count toward the item
/// limit (their number is bounded by the composition rules), and their
/// titles are not style-checked (each language's catalogue follows that
/// language's conventions).
///
/// Hidden elements count only for the rules about single elements (their
/// ids, titles); the rules about how a menu looks skip them, and a hidden
/// item may carry a shortcut. An element under a parent that cannot be
/// found is reported as an error and, with everything under it, skipped by
/// the rules about how a menu looks.
package enum Lint {
    /// Items (actions and submenus, through inline sections) of the app's
    /// own one level may hold before `Lint` asks to trim it.
    static let maxItemsPerLevel = 15

    /// Commands of the edit menu; in a context menu they mean the item
    /// offers both menus. Copy, Delete and the suggestions are at home in both.
    static let editOnlyCommands: Set<StandardCommand> = [
        .undo, .redo, .cut, .paste, .pasteAndMatchStyle, .select, .selectAll,
    ]

    /// - Parameter composed: the menu is one MenuBus composed, so its
    ///   `menubus:` ids are not the app's fault.
    /// - Parameter titles: the system's titles in the user's language, which
    ///   an app item's title is compared with (English is always compared).
    package static func check(kind: MenuKind, elements: [MenuElement], composed: Bool = false,
                              titles: SystemTitles = .english) -> [LintFinding] {
        var findings: [(index: Int, finding: LintFinding)] = []
        func add(_ index: Int, _ severity: LintFinding.Severity, _ message: String) {
            let id = elements.indices.contains(index) ? elements[index].id : ""
            findings.append((index, LintFinding(severity: severity, elementId: id, message: message)))
        }

        for problem in ElementValidation.problems(in: elements, allowReserved: composed) {
            add(problem.index ?? -1, .error, sentence(problem.error))
        }

        let structure = Structure(elements)
        for (index, element) in elements.enumerated() {
            checkElement(element, at: index, kind: kind, structure: structure, add: add)
        }
        for container in structure.containers where container < 0 || structure.isVisible(container) {
            checkSiblings(of: container, structure: structure, add: add)
            if container < 0 || elements[container].isSubmenu {
                checkLevel(of: container, structure: structure, add: add)
            }
        }
        checkCommands(kind: kind, structure: structure, add: add)
        checkSystemDuplicates(kind: kind, structure: structure, titles: titles, add: add)

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
        if visible && element.kind == .menu,
           !structure.children(of: index).contains(where: { !structure.elements[$0].has(.hidden) }) {
            add(index, .warning, "\(element.isSubmenu ? "Submenu" : "Section") \(name) has nothing to show; MenuBus leaves it out, so leave it out of the menu too.")
        }
        if visible && kind == .context && element.kind == .action, let title = element.title,
           TitleStyle.isBareOpen(title) {
            add(index, .warning, "An \(quoted(title)) item repeats what choosing the item itself already does; leave it out of the context menu.")
        }
        if visible && kind == .context, let shortcut = element.shortcut {
            add(index, .warning, "\(name) has the keyboard shortcut \(quoted(shortcut)); context menus do not show shortcuts, so put it in the app's main menu instead.")
        }
        if let title = element.title, !ElementID.isReserved(element.id) {
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

        if container < 0 || elements[container].isSubmenu {
            checkSections(of: container, structure: structure, add: add)
        }

        // Icons on some sibling actions but not all; a submenu needs no
        // glyph (HIG: its title and chevron say what it is).
        let items = children.filter { elements[$0].kind == .action }
        let withIcon = items.filter { elements[$0].icon != nil }
        if !withIcon.isEmpty && withIcon.count < items.count,
           let missing = items.first(where: { elements[$0].icon == nil }) {
            add(missing, .warning, "\(quoted(elements[missing].title ?? elements[missing].id)) has no icon while \(withIcon.count) of its \(items.count) sibling items have one; icons help people scan a menu only when every item in the group has one, so give each an icon, or none.")
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
                add(container, .warning, "\(containerName(container, structure)) is single-selection but \(on) of its items are on; turn on at most one.")
            }
        }
    }

    /// The size rules alone, of the top level and every submenu: more than
    /// three sections, more than `maxItemsPerLevel` items at one level. An
    /// app's own excess, which composition does not repair but menubusd
    /// reports.
    package static func excess(_ elements: [MenuElement]) -> [LintFinding] {
        var findings: [LintFinding] = []
        func add(_ index: Int, _ severity: LintFinding.Severity, _ message: String) {
            findings.append(LintFinding(severity: severity, elementId: index < 0 ? "" : elements[index].id, message: message))
        }
        let structure = Structure(elements)
        for container in structure.containers where container < 0 || (structure.isVisible(container) && elements[container].isSubmenu) {
            checkSections(of: container, structure: structure, add: add)
            checkItemCount(of: container, items: structure.levelItems(of: container), structure: structure, add: add)
        }
        return findings
    }

    /// Sections: each inline section, and each run of other items between them.
    private static func checkSections(of container: Int, structure: Structure,
                                      add: (Int, LintFinding.Severity, String) -> Void) {
        let elements = structure.elements
        var sections = 0
        var inRun = false
        for child in structure.children(of: container) where !elements[child].has(.hidden) {
            if elements[child].isSection {
                sections += 1
                inRun = false
            } else if !inRun {
                sections += 1
                inRun = true
            }
        }
        if sections > 3 {
            add(container, .warning, "\(containerName(container, structure)) has \(sections) sections; more than three makes it hard to scan, so merge related sections or move some items into a submenu.")
        }
    }

    private static func checkItemCount(of container: Int, items: [Int], structure: Structure,
                                       add: (Int, LintFinding.Severity, String) -> Void) {
        let own = items.filter { !ElementID.isReserved(structure.elements[$0].id) }.count
        if own > maxItemsPerLevel {
            add(container, .warning, "\(containerName(container, structure)) shows \(own) items at one level; a menu should offer only the commands people use most, so keep it to \(maxItemsPerLevel) or fewer and move the rest into a submenu or the app's main menu.")
        }
    }

    private static func containerName(_ container: Int, _ structure: Structure) -> String {
        container < 0 ? "The menu" : "Menu \(quoted(structure.elements[container].title ?? structure.elements[container].id))"
    }

    /// Rules about everything shown at one level (the top or a submenu,
    /// through its inline sections): too many items, one title twice.
    private static func checkLevel(of container: Int, structure: Structure,
                                   add: (Int, LintFinding.Severity, String) -> Void) {
        let elements = structure.elements
        let items = structure.levelItems(of: container)
        checkItemCount(of: container, items: items, structure: structure, add: add)
        var seen: [String: Int] = [:]
        for index in items {
            guard let title = elements[index].title, let key = TitleStyle.comparable(title) else { continue }
            if let first = seen[key] {
                add(index, .warning, "\(quoted(title)) has the same title as \(quoted(elements[first].id)); two items with one name make people guess which does what, so offer each command once.")
            } else {
                seen[key] = index
            }
        }
    }

    /// Rules about the commands of the whole menu: a command twice, edit
    /// commands in a context menu.
    private static func checkCommands(kind: MenuKind, structure: Structure,
                                      add: (Int, LintFinding.Severity, String) -> Void) {
        let elements = structure.elements
        var seen: [StandardCommand: Int] = [:]
        var reportedEditCommand = false
        for index in elements.indices where structure.isVisible(index) && elements[index].kind == .action {
            guard let command = elements[index].command else { continue }
            let name = quoted(elements[index].title ?? elements[index].id)
            if let first = seen[command] {
                add(index, .warning, "\(name) performs the system command '\(command.rawValue)' that \(quoted(elements[first].id)) already offers; a menu offers each command once, so people need not wonder which one to choose.")
            } else {
                seen[command] = index
            }
            if kind == .context && editOnlyCommands.contains(command) && !reportedEditCommand {
                reportedEditCommand = true
                add(index, .warning, "\(name) is an edit-menu command ('\(command.rawValue)') in a context menu; an item should offer either a context menu or an edit menu, not both, so people know what a long press or a secondary click does.")
            }
        }
    }

    /// "Parent 'x' comes later, … (items[3].parent)."
    private static func sentence(_ error: ModelError) -> String {
        let message = error.message.prefix(1).uppercased() + error.message.dropFirst()
        return "\(message) (\(error.field))."
    }

    static func quoted(_ text: String) -> String {
        ModelError.quoted(text)
    }
}
