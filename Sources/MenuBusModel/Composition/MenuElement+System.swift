extension MenuElement {
    /// The item of a standard command as MenuBus composes it: id
    /// `menubus:<command>`, the command's title and icon (`icon` stands in
    /// where the command has none: a provider's, for Translate or Share…;
    /// else the command's `menuIcon`), and in edit menus its accelerator.
    package static func system(_ command: StandardCommand, parent: String, title: String, icon: String? = nil,
                       state: State = .off, shortcut: Bool = false) -> MenuElement {
        MenuElement(id: ElementID.command(command), parent: parent, title: title,
                    icon: command.icon ?? icon ?? command.menuIcon, state: state,
                    shortcut: shortcut ? command.accelerator : nil, command: command)
    }

    /// An inline section MenuBus adds.
    static func systemSection(_ id: String) -> MenuElement {
        var section = MenuElement(id: id, kind: .menu)
        section.insert(.inline)
        return section
    }
}
