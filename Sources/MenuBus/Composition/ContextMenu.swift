/// The context menu of an item (DESIGN.md, "Context menu rules").
///
/// The app's items come first, in its order, arranged as `AppItems`
/// describes (hidden items go, destructive items last in their section,
/// one level of submenus). Then a last inline section
/// `menubus:section:suggestions` with the system's suggestions:
///
/// - Copy, when the context supports it and there is something to copy:
///   selected text (range or all, L > 0) in a text context, the item
///   itself in an image, file or URL context, or in an item context that
///   declares content types;
/// - Look Up, Translate, Search Web, Share…, each when the context
///   supports the command and a provider with that role matches the
///   context;
/// - the items of providers without a role that match the context.
///
/// In a text context providers need selected text, as in the edit menu.
/// A suggestion whose command one of the app's own items already performs
/// is left out.
enum ContextMenu {
    static func compose(context: ContextInfo, items: [MenuElement], providers: [ProviderInfo],
                        selection: Selection = Selection()) -> [MenuElement] {
        var menu = AppItems.arranged(items)
        let appItemCount = menu.count
        var appCommands: Set<StandardCommand> = []
        for index in menu.indices {
            if let command = menu[index].command { appCommands.insert(command) }
        }
        let section = ElementID.suggestions
        menu.append(.systemSection(section))
        func offers(_ command: StandardCommand) -> Bool {
            context.supports(command) && !appCommands.contains(command)
        }

        if offers(.copy) && hasCopyableContent(context: context, selection: selection) {
            menu.append(.system(.copy, parent: section))
        }
        if (context.kind != .text || selection.hasSelectedContent) && !providers.isEmpty {
            let matching = MatchingProviders(providers, context: context, selection: selection)
            for role in EditMenu.roleOrder where offers(role.command) {
                if let provider = matching.provider(for: role) {
                    menu.append(.system(role.command, parent: section, icon: provider.icon))
                }
            }
            for provider in matching.ownItems {
                menu.append(.providerItem(provider, parent: section))
            }
        }
        if menu.count == appItemCount + 1 { menu.removeLast() }
        return menu
    }

    /// Whether Copy has something to copy in this context.
    static func hasCopyableContent(context: ContextInfo, selection: Selection) -> Bool {
        switch context.kind {
        case .text: selection.hasSelectedContent
        case .image, .file, .url: true
        case .item: !context.contentTypes.isEmpty
        }
    }
}
