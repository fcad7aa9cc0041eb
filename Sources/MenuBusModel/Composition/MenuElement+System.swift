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

    /// The item of a provider without a role: `menubus:provider:<id>`, its
    /// own title and icon.
    static func providerItem(_ provider: ProviderInfo, parent: String) -> MenuElement {
        MenuElement(id: ElementID.provider(provider.id), parent: parent, title: provider.title, icon: provider.icon)
    }

    /// Providers' own items shown in a menu itself; past them the rest go
    /// into one Services submenu, as macOS gathers them: the HIG keeps a
    /// context menu short, and an app's one command should not drown in
    /// every other app's.
    static let maxInlineProviderItems = 2

    /// The providers' own items under `parent`: the first
    /// `maxInlineProviderItems` (all of them when one more would be alone
    /// in the submenu), then the Services submenu with the rest.
    static func providerItems(_ providers: [ProviderInfo], parent: String, titles: SystemTitles) -> [MenuElement] {
        guard providers.count > maxInlineProviderItems + 1 else {
            return providers.map { providerItem($0, parent: parent) }
        }
        var gathered = providers.dropFirst(maxInlineProviderItems).map { providerItem($0, parent: ElementID.services) }
        AppOffer.fitIcons(&gathered, parent: ElementID.services, siblingsHaveIcons: nil)
        return providers.prefix(maxInlineProviderItems).map { providerItem($0, parent: parent) }
            + [MenuElement(id: ElementID.services, parent: parent, kind: .menu, title: titles.services)] + gathered
    }
}
