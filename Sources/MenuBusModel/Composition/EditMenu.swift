/// The edit menu of a selection (docs/DESIGN.md, "Edit menu rules").
///
/// Groups, each an inline section `menubus:section:<n>` shown only when
/// not empty:
///
/// 1. Undo ‹name›, Redo ‹name›: when the context is editable and its
///    document can undo / redo.
/// 2. Cut (range or all, L > 0, editable), Copy (range or all, L > 0),
///    Paste (editable, and the pasteboard offers a type the context
///    accepts), Paste and Match Style (editable, rich text, and the
///    pasteboard offers text/html, text/rtf or application/rtf), Delete
///    (range or all, L > 0, editable), Select (none or caret, has content),
///    Select All (has content, selection not all).
/// 3. Format ▸ Bold / Italic / Underline (editable, rich text, L > 0; on
///    when the selection has the style); Look Up, Translate, Search Web,
///    Share… (range or all, L > 0, and a provider with that role that
///    matches the context); then providers without a role that match the
///    context, when something is selected. These provider suggestions are
///    arranged by `ProviderSuggestions`: a few, the rest in one Services
///    submenu, none past the level's item limit.
/// 4. The app's own items, arranged as `AppItems` describes.
///
/// When all four groups have items, group 1 joins group 2 (three sections
/// at most). System items carry their command's accelerator and, so no
/// group is half with icons, an icon each. A system item whose command or
/// title one of the app's items already has is left out.
///
/// A command the context does not support never shows; what is unavailable
/// is left out, not dimmed. A button or history context has no edit menu:
/// asked for one, it gets its `ButtonMenu`.
package enum EditMenu {
    /// The roles of group 3, in menu order.
    static let roleOrder: [ProviderRole] = [.lookup, .translate, .searchWeb, .share]

    /// - Parameter usage: times this user chose each provider, by id
    ///   (`ProviderSuggestions`).
    package static func compose(context: ContextInfo, selection: Selection, undo: UndoSummary?,
                        providers: [ProviderInfo], appItems: [MenuElement],
                        titles: SystemTitles = .english, usage: [String: Int] = [:]) -> [MenuElement] {
        if context.kind.isButton { return ButtonMenu.compose(context: context, items: appItems) }
        let app = AppItems.arranged(appItems, under: ElementID.section(4))
        let undoTitles = undo.map { [titles.undo($0.undoActionName), titles.redo($0.redoActionName)] } ?? []
        let offer = AppOffer(app, titles: titles, extra: undoTitles + providers.compactMap { $0.role == nil ? $0.title : nil })
        var groups: [[MenuElement]] = [[], [], []]
        func add(_ group: Int, _ command: StandardCommand, title: String? = nil, icon: String? = nil,
                 state: MenuElement.State = .off) {
            let title = title ?? titles.title(command)
            guard !offer.covers(command, title: title) else { return }
            groups[group - 1].append(.system(command, parent: ElementID.section(group), title: title, icon: icon,
                                             state: state, shortcut: true))
        }

        // Group 1: only where the user can change the content; a read-only
        // view of a document has nothing of its own to undo.
        if let undo, context.editable {
            if undo.canUndo && context.supports(.undo) { add(1, .undo, title: titles.undo(undo.undoActionName)) }
            if undo.canRedo && context.supports(.redo) { add(1, .redo, title: titles.redo(undo.redoActionName)) }
        }

        // Group 2
        let contextTypes = ContentType.parse(context.effectiveContentTypes)
        let pasteboard = ContentType.parse(selection.pasteboardTypes)
        let selected = selection.hasSelectedContent
        let editable = context.editable
        func add2(_ command: StandardCommand, when condition: Bool) {
            if condition && context.supports(command) { add(2, command) }
        }
        add2(.cut, when: selected && editable)
        add2(.copy, when: selected)
        add2(.paste, when: editable && ContentType.anyAccepts(contextTypes, pasteboard))
        add2(.pasteAndMatchStyle, when: editable && context.richText && holdsRichText(pasteboard))
        add2(.delete, when: selected && editable)
        add2(.select, when: (selection.kind == .none || selection.kind == .caret) && context.hasContent)
        add2(.selectAll, when: context.hasContent && selection.kind != .all)

        // Group 3
        appendFormat(to: &groups[2], parent: ElementID.section(3), context: context, selection: selection,
                     titles: titles, offer: offer)
        if selected && !providers.isEmpty {
            let matching = MatchingProviders(providers, contextTypes: selection.offeredContentTypes(contextTypes),
                                             editable: context.takesReplacement)
            let candidates = ProviderSuggestions.candidates(matching, context: context, offer: offer, titles: titles,
                                                            shortcut: true)
            // The room the other items leave of the level's item limit.
            let others = groups[0].count + groups[1].count + ProviderSuggestions.levelCount(groups[2], parent: ElementID.section(3))
                + ProviderSuggestions.levelCount(app, parent: ElementID.section(4))
            groups[2] += ProviderSuggestions.arrange(candidates, usage: usage, room: Lint.maxItemsPerLevel - others,
                                                     parent: ElementID.section(3), titles: titles, offer: offer)
        }

        // Four groups are one more than a menu should have (Lint's section
        // rule): then Undo and Redo join the editing group, at its start.
        if !groups[0].isEmpty && !groups[1].isEmpty && !groups[2].isEmpty && !app.isEmpty {
            for index in groups[0].indices { groups[0][index].parent = ElementID.section(2) }
            groups[1] = groups[0] + groups[1]
            groups[0] = []
        }

        var menu: [MenuElement] = []
        menu.reserveCapacity(24 + app.count)
        for (offset, var group) in groups.enumerated() where !group.isEmpty {
            let section = ElementID.section(offset + 1)
            AppOffer.fitIcons(&group, parent: section, siblingsHaveIcons: true)
            menu.append(.systemSection(section))
            menu += group
        }
        // Group 4: the app's own items, after every system item.
        if !app.isEmpty {
            menu.append(.systemSection(ElementID.section(4)))
            menu += app
        }
        return menu
    }

    /// The provider that performs `role` in `context`: the first registered
    /// one with that role whose content types match. The service asks this
    /// again when the item is chosen.
    package static func provider(for role: ProviderRole, context: ContextInfo,
                         providers: [ProviderInfo]) -> ProviderInfo? {
        MatchingProviders(providers, context: context).provider(for: role)
    }

    /// Format ▸ Bold / Italic / Underline, for the supported ones.
    private static func appendFormat(to menu: inout [MenuElement], parent: String, context: ContextInfo,
                                     selection: Selection, titles: SystemTitles, offer: AppOffer) {
        guard context.editable && context.richText && selection.hasSelectedContent else { return }
        let commands = [StandardCommand.bold, .italic, .underline].filter {
            context.supports($0) && !offer.covers($0, title: titles.title($0))
        }
        guard !commands.isEmpty, !offer.covers(nil, title: titles.format) else { return }
        menu.append(MenuElement(id: ElementID.format, parent: parent, kind: .menu, title: titles.format))
        for command in commands {
            let attribute: Selection.TextAttribute = command == .bold ? .bold : command == .italic ? .italic : .underline
            let state: MenuElement.State = selection.attributes.contains(attribute) ? .on : .off
            menu.append(.system(command, parent: ElementID.format, title: titles.title(command), state: state,
                                shortcut: true))
        }
    }

    /// True when the pasteboard offers text/html, text/rtf or application/rtf.
    static func holdsRichText(_ types: [ContentType]) -> Bool {
        types.contains { type in ContentType.richTypes.contains { $0.isSame(as: type) } }
    }
}
