/// What the app's own (arranged, visible) items already offer, so the
/// items MenuBus adds never repeat one: by command and by title, as a
/// person reading the menu would compare them ("Copy" twice is one too
/// many, whatever each does).
struct AppOffer {
    private var commands: Set<StandardCommand> = []
    /// The comparable titles of app items that one of the candidates has.
    private var titles: Set<String> = []
    /// Their heads (`TitleStyle.comparableHead`), to answer most `covers`
    /// without building the asked title's comparable form.
    private var titleHeads: [UInt32] = []

    /// - Parameters:
    ///   - titles: the system titles of this composition (their keys are
    ///     computed once per language);
    ///   - extra: other titles MenuBus may add here: "Undo Typing", a
    ///     provider's own title.
    /// Only an app title starting like a candidate (its first four letters
    /// and digits, or its first character when not ASCII) is compared in full,
    /// so composing stays cheap for menus of many items; the extra titles'
    /// comparable forms are built only when an app title starts like one.
    init(_ arranged: [MenuElement], titles system: SystemTitles, extra: [String] = []) {
        // The few extra keys sit beside the language's set rather than in a
        // copy of it. An extra title with an ASCII head waits in `pending`
        // until an app title has that head, or one has no head at all.
        var extraKeys: [String] = [], extraStarts: [Character] = [], extraHeads: [UInt32] = []
        var pending: [String] = []
        func addKey(_ title: String) {
            guard let key = TitleStyle.comparable(title), let first = key.first else { return }
            extraKeys.append(key)
            extraStarts.append(first)
            if let head = TitleStyle.comparableHead(key) { extraHeads.append(head) }
        }
        for title in extra {
            if let head = TitleStyle.comparableHead(title) {
                pending.append(title)
                extraHeads.append(head)
            } else {
                addKey(title)
            }
        }
        for element in arranged where element.kind == .action || element.isSubmenu {
            if let command = element.command { commands.insert(command) }
            guard let title = element.title else { continue }
            // Most titles are ruled out by their head (ASCII) or first character.
            if let head = TitleStyle.comparableHead(title) {
                let extraMayHave = extraHeads.contains(head)
                guard system.keyHeads.mayContain(head) || extraMayHave else { continue }
                if extraMayHave && !pending.isEmpty {
                    pending.forEach(addKey)
                    pending = []
                }
            } else {
                // Starts are known only of built keys: build the pending ones.
                if !pending.isEmpty {
                    pending.forEach(addKey)
                    pending = []
                }
                guard let first = TitleStyle.comparableStart(title),
                      system.keyStarts.contains(first) || extraStarts.contains(first) else { continue }
            }
            guard let key = TitleStyle.comparable(title), system.keys.contains(key) || extraKeys.contains(key)
            else { continue }
            if titles.insert(key).inserted, let head = TitleStyle.comparableHead(key) { titleHeads.append(head) }
        }
    }

    /// True when an app item performs `command` or is titled `title` (a
    /// system title or one of the extra titles given at init).
    func covers(_ command: StandardCommand?, title: String) -> Bool {
        if let command, commands.contains(command) { return true }
        guard !titles.isEmpty else { return false }
        // A title and its comparable form have one head: a head none of the
        // covered titles has rules it out.
        if let head = TitleStyle.comparableHead(title), !titleHeads.contains(head) { return false }
        guard let key = TitleStyle.comparable(title) else { return false }
        return titles.contains(key)
    }

    /// Makes the icons of the actions directly under `parent` in `items`
    /// follow their group, so no group is half with icons (the rule `Lint`
    /// checks): `siblingsHaveIcons` true gives every one an icon (its
    /// command's, else `system-run`), false takes them all off, nil takes
    /// them off when any lacks one.
    static func fitIcons(_ items: inout [MenuElement], parent: String, siblingsHaveIcons: Bool?) {
        let actions = items.indices.filter { items[$0].parent == parent && items[$0].kind == .action }
        let keep: Bool
        switch siblingsHaveIcons {
        case .some(let value): keep = value
        case .none: keep = actions.allSatisfy { items[$0].icon != nil }
        }
        for index in actions {
            if !keep {
                items[index].icon = nil
            } else if items[index].icon == nil {
                items[index].icon = items[index].command?.menuIcon ?? "system-run"
            }
        }
    }
}
