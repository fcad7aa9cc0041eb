/// The edit menu of a selection (DESIGN.md, "Edit menu rules").
///
/// Groups, each an inline section `menubus:section:<n>` shown only when
/// not empty:
///
/// 1. Undo ‹name›, Redo ‹name›: when the document can undo / redo.
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
///    context, when something is selected.
/// 4. The app's own items, arranged as `AppItems` describes.
///
/// A command the context does not support never shows; what is unavailable
/// is left out, not dimmed.
enum EditMenu {
    /// The roles of group 3, in menu order.
    static let roleOrder: [ProviderRole] = [.lookup, .translate, .searchWeb, .share]

    static func compose(context: ContextInfo, selection: Selection, undo: UndoSummary?,
                        providers: [ProviderInfo], appItems: [MenuElement]) -> [MenuElement] {
        var menu: [MenuElement] = []
        menu.reserveCapacity(24 + appItems.count)

        // Group 1
        if let undo {
            let section = ElementID.section(1)
            let start = menu.count
            menu.append(.systemSection(section))
            if undo.canUndo && context.supports(.undo) {
                menu.append(.system(.undo, parent: section, title: undo.undoTitle))
            }
            if undo.canRedo && context.supports(.redo) {
                menu.append(.system(.redo, parent: section, title: undo.redoTitle))
            }
            dropIfEmpty(&menu, sectionAt: start)
        }

        // Group 2
        let contextTypes = ContentType.parse(context.effectiveContentTypes)
        let pasteboard = ContentType.parse(selection.pasteboardTypes)
        do {
            let section = ElementID.section(2)
            let start = menu.count
            menu.append(.systemSection(section))
            let selected = selection.hasSelectedContent
            let editable = context.editable
            func add(_ command: StandardCommand, when condition: Bool) {
                if condition && context.supports(command) {
                    menu.append(.system(command, parent: section))
                }
            }
            add(.cut, when: selected && editable)
            add(.copy, when: selected)
            add(.paste, when: editable && ContentType.anyAccepts(contextTypes, pasteboard))
            add(.pasteAndMatchStyle, when: editable && context.richText && holdsRichText(pasteboard))
            add(.delete, when: selected && editable)
            add(.select, when: (selection.kind == .none || selection.kind == .caret) && context.hasContent)
            add(.selectAll, when: context.hasContent && selection.kind != .all)
            dropIfEmpty(&menu, sectionAt: start)
        }

        // Group 3
        do {
            let section = ElementID.section(3)
            let start = menu.count
            menu.append(.systemSection(section))
            appendFormat(to: &menu, parent: section, context: context, selection: selection)
            if selection.hasSelectedContent && !providers.isEmpty {
                let matching = MatchingProviders(providers, contextTypes: selection.offeredContentTypes(contextTypes),
                                                 editable: context.editable)
                for role in roleOrder where context.supports(role.command) {
                    if let provider = matching.provider(for: role) {
                        menu.append(.system(role.command, parent: section, icon: provider.icon))
                    }
                }
                for provider in matching.ownItems {
                    menu.append(.providerItem(provider, parent: section))
                }
            }
            dropIfEmpty(&menu, sectionAt: start)
        }

        // Group 4
        let start = menu.count
        menu.append(.systemSection(ElementID.section(4)))
        AppItems.append(appItems, under: ElementID.section(4), to: &menu)
        dropIfEmpty(&menu, sectionAt: start)
        return menu
    }

    /// The provider that performs `role` in `context`: the first registered
    /// one with that role whose content types match. The service asks this
    /// again when the item is chosen.
    static func provider(for role: ProviderRole, context: ContextInfo,
                         providers: [ProviderInfo]) -> ProviderInfo? {
        MatchingProviders(providers, context: context).provider(for: role)
    }

    /// Format ▸ Bold / Italic / Underline, for the supported ones.
    private static func appendFormat(to menu: inout [MenuElement], parent: String,
                                     context: ContextInfo, selection: Selection) {
        guard context.editable && context.richText && selection.hasSelectedContent else { return }
        let bold = context.supports(.bold)
        let italic = context.supports(.italic)
        let underline = context.supports(.underline)
        guard bold || italic || underline else { return }
        menu.append(MenuElement(id: ElementID.format, parent: parent, kind: .menu, title: "Format"))
        func add(_ command: StandardCommand, _ attribute: Selection.TextAttribute) {
            let state: MenuElement.State = selection.attributes.contains(attribute) ? .on : .off
            menu.append(.system(command, parent: ElementID.format, state: state))
        }
        if bold { add(.bold, .bold) }
        if italic { add(.italic, .italic) }
        if underline { add(.underline, .underline) }
    }

    /// True when the pasteboard offers text/html, text/rtf or application/rtf.
    static func holdsRichText(_ types: [ContentType]) -> Bool {
        types.contains { type in ContentType.richTypes.contains { $0.isSame(as: type) } }
    }

    /// Removes the section element at `start` when nothing followed it.
    private static func dropIfEmpty(_ menu: inout [MenuElement], sectionAt start: Int) {
        if menu.count == start + 1 { menu.removeLast() }
    }
}
