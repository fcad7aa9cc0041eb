/// The context menu of an item (docs/DESIGN.md, "Context menu rules").
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
/// - the items of providers without a role that match the context;
///
/// the provider suggestions (the last two kinds) arranged by
/// `ProviderSuggestions`: a few, the rest in one Services submenu. Nothing
/// the system adds takes the level past `Lint.maxItemsPerLevel` items: when
/// the app's own items leave no room, there are no suggestions.
///
/// In a text context providers need selected text, as in the edit menu.
/// A suggestion whose command or title one of the app's own items already
/// has is left out.
///
/// Placed so the menu keeps the rules `Lint` checks whenever the app's
/// items keep them: the section goes before the app's trailing destructive
/// items (destructive items stay last), and where one more section would
/// make more than three, the suggestions join the app's last group instead
/// (its last section, or its last run of items), before any destructive
/// item there; their icons follow that group's. Suggestions never join a
/// single-selection or palette section: then there are none.
///
/// A button or history context's menu is `ButtonMenu`'s: its items alone.
package enum ContextMenu {
    static let maxSections = 3

    /// - Parameter usage: times this user chose each provider, by id
    ///   (`ProviderSuggestions`).
    package static func compose(context: ContextInfo, items: [MenuElement], providers: [ProviderInfo],
                                selection: Selection = Selection(), titles: SystemTitles = .english,
                                usage: [String: Int] = [:]) -> [MenuElement] {
        if context.kind.isButton { return ButtonMenu.compose(context: context, items: items) }
        var menu = AppItems.arranged(items)
        let offer = AppOffer(menu, titles: titles, extra: providers.compactMap { $0.role == nil ? $0.title : nil })
        let section = ElementID.suggestions
        // What the app's own items leave of the level's item limit.
        var room = Lint.maxItemsPerLevel - ProviderSuggestions.levelCount(menu)
        var suggestions: [MenuElement] = []
        if room > 0 && hasCopyableContent(context: context, selection: selection) && context.supports(.copy) {
            let title = titles.title(.copy)
            if !offer.covers(.copy, title: title) {
                suggestions.append(.system(.copy, parent: section, title: title))
                room -= 1
            }
        }
        if (context.kind != .text || selection.hasSelectedContent) && !providers.isEmpty {
            let matching = MatchingProviders(providers, context: context, selection: selection)
            let candidates = ProviderSuggestions.candidates(matching, context: context, offer: offer, titles: titles,
                                                            shortcut: false)
            suggestions += ProviderSuggestions.arrange(candidates, usage: usage, room: room, parent: section,
                                                       titles: titles, offer: offer)
        }
        guard !suggestions.isEmpty else { return menu }
        place(suggestions, into: &menu)
        return menu
    }

    /// Puts the suggestions (parent `menubus:section:suggestions`) into the
    /// arranged app menu, as described above.
    private static func place(_ suggestions: [MenuElement], into menu: inout [MenuElement]) {
        var suggestions = suggestions
        let top = menu.indices.filter { menu[$0].parent.isEmpty }
        // AppItems moved destructive top-level items (and their subtrees) to the end.
        let trailing = top.reversed().prefix { menu[$0].kind != .deferred && menu[$0].isDestructive }.count
        let plain = top.dropLast(trailing)
        let destructive = top.suffix(trailing)
        let insertAt = destructive.first ?? menu.count

        let withSection = plain.map { menu[$0].isSection } + [true] + destructive.map { menu[$0].isSection }
        if sectionCount(withSection) <= maxSections {
            AppOffer.fitIcons(&suggestions, parent: ElementID.suggestions, siblingsHaveIcons: true)
            menu.insert(contentsOf: [.systemSection(ElementID.suggestions)] + suggestions, at: insertAt)
            return
        }
        guard let last = plain.last else { return }
        if menu[last].isSection {
            guard !menu[last].has(.singleSelection) && !menu[last].has(.palette) else { return }
            let sectionId = menu[last].id
            // The section's subtree, and where its destructive children start.
            var inside: Set<String> = [sectionId]
            var position = last + 1
            var firstDestructive: Int?
            while position < menu.count, inside.contains(menu[position].parent) {
                inside.insert(menu[position].id)
                if firstDestructive == nil && menu[position].parent == sectionId
                    && menu[position].kind != .deferred && menu[position].isDestructive {
                    firstDestructive = position
                }
                position += 1
            }
            let siblings = menu[(last + 1)..<position].filter { $0.parent == sectionId && $0.kind == .action }
            moveUnder(sectionId, &suggestions, siblings: siblings)
            menu.insert(contentsOf: suggestions, at: firstDestructive ?? position)
        } else {
            // Joins the last run of top-level items, before the destructive
            // ones; its icons follow every top-level action's.
            let siblings = top.map { menu[$0] }.filter { $0.kind == .action }
            moveUnder("", &suggestions, siblings: siblings)
            menu.insert(contentsOf: suggestions, at: insertAt)
        }
    }

    private static func moveUnder(_ parent: String, _ suggestions: inout [MenuElement], siblings: [MenuElement]) {
        // The Services submenu's items stay in it.
        for index in suggestions.indices where suggestions[index].parent == ElementID.suggestions {
            suggestions[index].parent = parent
        }
        let withIcon = siblings.filter { $0.icon != nil }.count
        // No sibling actions: the suggestions keep their own icons, uniform.
        let fit: Bool? = siblings.isEmpty ? true : withIcon == 0 ? false : withIcon == siblings.count ? true : nil
        if let fit { AppOffer.fitIcons(&suggestions, parent: parent, siblingsHaveIcons: fit) }
    }

    /// Sections as `Lint` counts them: each inline section, and each run of
    /// other items between them.
    static func sectionCount(_ isSection: [Bool]) -> Int {
        var count = 0
        var inRun = false
        for section in isSection {
            if section {
                count += 1
                inRun = false
            } else if !inRun {
                count += 1
                inRun = true
            }
        }
        return count
    }

    /// Whether Copy has something to copy in this context.
    static func hasCopyableContent(context: ContextInfo, selection: Selection) -> Bool {
        switch context.kind {
        case .text: selection.hasSelectedContent
        case .image, .file, .url: true
        case .item: !context.contentTypes.isEmpty
        case .button, .history: false
        }
    }
}
