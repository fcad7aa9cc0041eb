/// The suggestions providers add to a composed menu (docs/DESIGN.md,
/// "Provider suggestions"): the items of the roles (Look Up, Translate,
/// Search Web, Share…) and the providers' own items, kept within the
/// limits `Lint` checks.
///
/// At most `shownAtTop` of them show at the menu's level: the ones this user
/// chooses most often (`usage`), ties in the stable order the candidates
/// come in, and those few in that same order, so an item moves only when
/// another overtakes it. Every other one goes into one submenu, "Services"
/// (`menubus:services`), ranked the same way (most chosen first, ties in
/// the stable order), as the macOS Services menu lists every enabled
/// service: a matching provider is never left out (the user's policy
/// hides one). One left over shows beside the others instead: a submenu of
/// one item is a detour that saves no room.
///
/// No more than `room` items are added at the menu's level, so the
/// daemon's additions never take a level past `Lint.maxItemsPerLevel`;
/// the submenu is MenuBus's own list, which `Lint` does not count.
package enum ProviderSuggestions {
    /// Provider suggestions shown at the menu's own level. The HIG asks for
    /// "a small number of menu items" in a context menu, since a long one
    /// "can be difficult to scan and scroll", and warns against
    /// "overwhelming people with too many custom commands" in an edit menu:
    /// three, so that with Copy and the submenu MenuBus adds five items at
    /// most, however many providers there are.
    package static let shownAtTop = 3

    /// A suggestion before arranging: what its element will be, and the
    /// provider whose choices rank it. The element is made once, when its
    /// place (the menu's level or the submenu) is known.
    struct Candidate {
        /// The role's command, or nil for a provider's own item.
        let command: StandardCommand?
        let title: String
        let icon: String?
        let providerId: String
        /// The menu shows shortcuts (an edit menu): the command's, else the provider's.
        let shortcut: Bool
        /// The provider's `shortcut`, which its shim runs it by.
        let providerShortcut: String?

        func element(parent: String) -> MenuElement {
            // A provider's own item: `menubus:provider:<id>`, its title and icon.
            guard let command else {
                return MenuElement(id: ElementID.provider(providerId), parent: parent, title: title, icon: icon,
                                   shortcut: shortcut ? providerShortcut : nil)
            }
            var element = MenuElement.system(command, parent: parent, title: title, icon: icon, shortcut: shortcut)
            if shortcut, element.shortcut == nil { element.shortcut = providerShortcut }
            return element
        }
    }

    /// The role items, in `EditMenu.roleOrder`, and the providers' own
    /// items, in the providers' order, that `context` supports and the
    /// app's own items do not already offer.
    static func candidates(_ matching: MatchingProviders, context: ContextInfo, offer: AppOffer,
                           titles: SystemTitles, shortcut: Bool) -> [Candidate] {
        var result: [Candidate] = []
        for role in EditMenu.roleOrder where context.supports(role.command) {
            guard let provider = matching.provider(for: role) else { continue }
            let title = titles.title(role.command)
            guard !offer.covers(role.command, title: title) else { continue }
            result.append(Candidate(command: role.command, title: title, icon: provider.icon, providerId: provider.id,
                                    shortcut: shortcut, providerShortcut: provider.shortcut))
        }
        matching.forEachOwnItem { provider in
            guard !offer.covers(nil, title: provider.title) else { return }
            result.append(Candidate(command: nil, title: provider.title, icon: provider.icon, providerId: provider.id,
                                    shortcut: shortcut, providerShortcut: provider.shortcut))
        }
        return result
    }

    /// `candidates` as they show: up to `shownAtTop` under `parent` (fewer
    /// when `room` is smaller), then the Services submenu with all the rest,
    /// most chosen first; nothing when `room` is not positive. `usage`:
    /// times this user chose each provider, by id.
    static func arrange(_ candidates: [Candidate], usage: [String: Int], room: Int, parent: String,
                        titles: SystemTitles, offer: AppOffer) -> [MenuElement] {
        guard room > 0, !candidates.isEmpty else { return [] }
        let limit = min(shownAtTop, room)
        // A single one left over shows as itself, in the place its submenu would take.
        if candidates.count <= limit || (candidates.count == limit + 1 && limit < room) {
            return candidates.map { $0.element(parent: parent) }
        }
        // The app's own "Services" would make two items with one title: then only the few.
        let gathers = !offer.covers(nil, title: titles.services)
        let top = gathers ? min(shownAtTop, room - 1) : limit
        // Each count looked up once; with none, the stable order is the ranking.
        let counts = usage.isEmpty ? [] : candidates.map { usage[$0.providerId] ?? 0 }
        let ranked = counts.isEmpty ? Array(candidates.indices) : candidates.indices.sorted {
            counts[$0] != counts[$1] ? counts[$0] > counts[$1] : $0 < $1
        }
        let shown = Set(ranked.prefix(top))
        var result = candidates.indices.filter { shown.contains($0) }.map { candidates[$0].element(parent: parent) }
        guard gathers else { return result }
        var submenu = ranked.dropFirst(top).map { candidates[$0].element(parent: ElementID.services) }
        AppOffer.fitIcons(&submenu, parent: ElementID.services, siblingsHaveIcons: true)
        result.append(MenuElement(id: ElementID.services, parent: parent, kind: .menu, title: titles.services))
        return result + submenu
    }

    /// Actions and submenus an arranged menu shows at the level of `parent`
    /// (through its inline sections), as `Lint` counts them for its item limit.
    static func levelCount(_ arranged: [MenuElement], parent: String = "") -> Int {
        var containers: Set<String> = [parent]
        var count = 0
        for element in arranged where containers.contains(element.parent) {
            if element.isSection {
                containers.insert(element.id)
            } else if element.kind == .action || element.isSubmenu {
                count += 1
            }
        }
        return count
    }
}
