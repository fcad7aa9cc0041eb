import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Composes menus by the rules from a context, the providers offered and
/// the owner's undo state, and answers the one-off reads
/// (`GetContextMenu`, `GetEditMenu`) from the marshalled replies it keeps
/// (`ComposedMenuReplies`).
final class Composer {
    private unowned let contexts: Contexts
    private unowned let providers: Providers
    private unowned let undo: Undo
    /// Marshalled GetContextMenu / GetEditMenu replies.
    private let replies = ComposedMenuReplies()
    /// Apps' own menus past the size rules, logged once.
    private let menuExcess = MenuExcessReports()

    init(contexts: Contexts, providers: Providers, undo: Undo) {
        self.contexts = contexts
        self.providers = providers
        self.undo = undo
    }

    /// The menu by the rules, deferred elements still in it.
    /// The composed menu, MenuBus's titles in `titles`' language and the
    /// declared providers' in `locale`'s (nil: the session's).
    func compose(_ kind: MenuKind, _ context: PublishedContext, appId: String, titles: SystemTitles,
                 locale: String? = nil) -> [MenuElement] {
        menuExcess.check(appId: appId, contextId: context.id, revision: context.revision, items: context.items)
        // A button's menu is its own items: no providers, undo or usage to gather.
        if context.info.kind.isButton { return ButtonMenu.compose(context: context.info, items: context.items) }
        let offered = providers.infos(locale: locale)
        switch kind {
        case .edit:
            return EditMenu.compose(context: context.info, selection: context.selection,
                                    undo: undo.summary(appId: appId, context: context),
                                    providers: offered, appItems: context.items, titles: titles,
                                    usage: providers.usageCounts)
        case .context:
            return ContextMenu.compose(context: context.info, items: context.items, providers: offered,
                                       selection: context.selection, titles: titles, usage: providers.usageCounts)
        }
    }

    /// `GetContextMenu` and `GetEditMenu`: the menu as composed now, equal
    /// menus answered with the same marshalled bytes.
    func composedMenuReply(_ kind: MenuKind, caller: String, owner: String, contextId: String,
                           options: DBusValue) throws -> PreparedReply {
        let (revision, menu, key) = try composedMenu(kind, caller: caller, owner: owner, contextId: contextId,
                                                     options: options)
        return try replies.reply(for: key, revision: revision, menu: menu)
    }

    private func composedMenu(_ kind: MenuKind, caller: String, owner: String, contextId: String,
                              options: DBusValue) throws -> (UInt32, [MenuElement], ComposedMenuReplies.Key) {
        try ServiceValidation.optionCount(options, field: "options")
        let read = try PresentationOptions(wire: options)
        let (unique, context) = try contexts.resolveMenuContext(owner, caller: caller, contextId: contextId)
        // A one-off read: cached deferred content shows, others are left out
        // (nothing is asked of the app for a menu nobody presents).
        let composed = compose(kind, context, appId: contexts[unique]?.appId ?? "",
                               titles: Localization.shared.titles(for: read.locale), locale: read.locale)
        var failed: Set<String> = []
        for element in composed where element.kind == .deferred && !(element.cached && context.deferredCache[element.id] != nil) {
            failed.insert(element.id)
        }
        let key = ComposedMenuReplies.Key(owner: unique, contextId: contextId, kind: kind, locale: read.locale ?? "",
                                          omittedCommands: read.omittedCommands)
        let resolved = DeferredElements.resolve(composed, provided: context.deferredCache, failed: failed).elements
        return (context.revision, CommandOmission.apply(read.omittedCommands, to: resolved), key)
    }

    /// Context `contextId` of `owner` went: so do its replies.
    func contextRemoved(owner: String, contextId: String) {
        replies.drop(owner: owner, contextId: contextId)
    }

    /// `owner` left the bus: the replies of its contexts go.
    func ownerLeft(_ owner: String) {
        replies.drop(owner: owner)
    }
}
