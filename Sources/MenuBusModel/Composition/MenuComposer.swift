/// Menu composition in process, without the daemon: the same rules menubusd
/// applies, for toolkits that compose locally and for measuring the rules.
package enum MenuComposer {
    /// The edit menu for `selection` in `context`, with the app's own items last.
    package static func editMenu(context: ContextInfo, selection: Selection, appItems: [MenuElement] = []) -> [MenuElement] {
        EditMenu.compose(context: context, selection: selection, undo: nil, providers: [], appItems: appItems)
    }

    /// The context menu of `context` with the app's `items` and the system's suggestions.
    package static func contextMenu(context: ContextInfo, items: [MenuElement], selection: Selection = Selection()) -> [MenuElement] {
        ContextMenu.compose(context: context, items: items, providers: [], selection: selection)
    }

    /// The design rules' findings for a menu of `kind` (what `Lint` answers).
    /// `composed`: the menu as menubusd served it, whose `menubus:` ids are
    /// MenuBus's own; `titles`: the system's titles in the user's language.
    package static func lint(kind: MenuKind, elements: [MenuElement], composed: Bool = false,
                             titles: SystemTitles = Localization.shared.titles()) -> [LintFinding] {
        Lint.check(kind: kind, elements: elements, composed: composed, titles: titles)
    }

    /// The size rules an app's own `elements` break (more than three
    /// sections, too many items at one level): what composition does not
    /// repair and menubusd reports.
    package static func excess(elements: [MenuElement]) -> [LintFinding] {
        Lint.excess(elements)
    }
}
