extension Lint {
    /// The system commands MenuBus adds to a menu of `kind` whenever the
    /// context supports them, whatever providers are installed
    /// (docs/DESIGN.md, "Edit menu rules" and "Context menu rules"): the
    /// edit and format commands in an edit menu, Copy in a context menu.
    /// The roles' items (Look Up, Share…) show only while a provider of the
    /// role matches, so an app's own is no duplicate where none does.
    static func systemCommands(_ kind: MenuKind) -> [StandardCommand] {
        switch kind {
        case .edit: [.undo, .redo, .cut, .copy, .paste, .pasteAndMatchStyle, .delete, .select, .selectAll,
                     .bold, .italic, .underline]
        case .context: [.copy]
        }
    }

    /// An app item that repeats a system command MenuBus adds itself: by its
    /// standard command, by its title (in `titles`' language or in English,
    /// compared as composition compares them), or, in an edit menu, by the
    /// command's accelerator. MenuBus then leaves its own item out, so the
    /// command shows in the app's place and style rather than the system's,
    /// and an accelerator shared with a system command does two things.
    static func checkSystemDuplicates(kind: MenuKind, structure: Structure, titles: SystemTitles,
                                      add: (Int, LintFinding.Severity, String) -> Void) {
        let commands = systemCommands(kind)
        var byTitle: [String: StandardCommand] = [:]
        for command in commands {
            for title in [command.title, titles.title(command)] {
                if let key = TitleStyle.comparable(title), byTitle[key] == nil { byTitle[key] = command }
            }
        }
        var byAccelerator: [String: StandardCommand] = [:]
        if kind == .edit {
            for command in commands {
                if let accelerator = command.accelerator.flatMap(ShortcutSyntax.canonical) { byAccelerator[accelerator] = command }
            }
        }
        let elements = structure.elements
        for index in elements.indices where structure.isVisible(index) && elements[index].kind == .action {
            let element = elements[index]
            guard !ElementID.isReserved(element.id) else { continue }
            let name = quoted(element.title ?? element.id)
            let menu = kind == .edit ? "edit menu" : "context menu"
            if let command = element.command, commands.contains(command) {
                add(index, .warning, "\(name) performs the system command '\(command.rawValue)', which MenuBus adds to every \(menu) that supports it; leave the item out and list '\(command.rawValue)' in the context's supported-commands, so the command shows once, where and as people expect it.")
            } else if let title = element.title, let key = TitleStyle.comparable(title), let command = byTitle[key] {
                add(index, .warning, "\(name) has the title of the system command '\(command.rawValue)', which MenuBus adds to every \(menu) that supports it; leave the item out, so the command shows once (MenuBus's own performs it through the context's PerformCommand), or name it for what it does differently.")
            } else if let shortcut = element.shortcut, let canonical = ShortcutSyntax.canonical(shortcut),
                      let command = byAccelerator[canonical] {
                add(index, .warning, "\(name) has the shortcut \(quoted(shortcut)), the accelerator of the system command '\(command.rawValue)' in every edit menu; give it another, so one key does one thing.")
            }
        }
    }
}
