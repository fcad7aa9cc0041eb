import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

extension MenuBusServer {
    // MARK: Apps

    package func register(caller: String, appId: String, clientPath: ObjectPath, options: DBusValue) throws {
        try ServiceValidation.appId(appId)
        try ServiceValidation.optionCount(options, field: "options")
        try checkRegistration(caller: caller, appId: appId)
        guard try registeredApps.register(caller, appId: appId, clientPath: clientPath) else { return }
        Log.debug("\(caller) registered as \(appId)")
    }

    /// The next context revision, from one counter for the whole daemon: a
    /// context removed and published again never goes back to a revision a
    /// reader already saw.
    func nextRevision() -> UInt32 {
        registeredApps.nextRevision()
    }

    /// The caller's app, or `NotRegistered`.
    func registeredApp(_ caller: String) throws -> App {
        guard let app = apps[caller] else {
            throw BusError(.notRegistered, "call Register before publishing contexts")
        }
        return app
    }

    // MARK: Contexts

    /// `sizes`: the budget bytes of `context` and `items` when the call's
    /// reading counted them (`MenuBusServer.cost` otherwise).
    package func publishContext(caller: String, contextId: String, context: DBusValue, items: DBusValue,
                                sizes: (context: Int, items: Int)? = nil) throws -> UInt32 {
        var app = try registeredApp(caller)
        try ServiceValidation.contextId(contextId)
        // Counted and refused before anything is decoded or stored.
        let infoBytes = sizes?.context ?? MenuBusServer.cost(context), itemsBytes = sizes?.items ?? MenuBusServer.cost(items)
        let old = app.contexts[contextId]
        try checkContextGrowth(caller: caller, contextId: contextId, adding: infoBytes + itemsBytes,
                               releasing: (old?.infoBytes ?? 0) + (old?.itemsBytes ?? 0), field: "items")
        let info = try Wire.decodeContext(context, field: "context")
        let elements = try Wire.decodeElements(items, field: "items", previous: old?.items)
        do { try ButtonMenu.validate(context: info, items: elements) } catch { throw error.busError }
        if var existing = app.contexts[contextId] {
            existing.info = info
            existing.items = elements
            existing.revision = nextRevision()
            existing.infoBytes = infoBytes
            existing.itemsBytes = itemsBytes
            app.contexts[contextId] = existing
        } else {
            guard app.contexts.count < Limits.maxContextsPerApp else {
                throw BusError(.limitExceeded, "contextId: an app may publish at most \(Limits.maxContextsPerApp) contexts")
            }
            var created = PublishedContext(id: contextId, info: info, items: elements, revision: nextRevision())
            created.infoBytes = infoBytes
            created.itemsBytes = itemsBytes
            app.contexts[contextId] = created
        }
        if let stored = app.contexts[contextId] { registeredApps.store(stored, of: caller) }
        heldItemSpans.drop(owner: caller, contextId: contextId)
        contextChanged(owner: caller, contextId: contextId)
        return app.contexts[contextId]?.revision ?? 0
    }

    package func updateItems(caller: String, contextId: String, items: DBusValue, itemsBytes: Int? = nil) throws -> UInt32 {
        let revision = try updateItems(caller: caller, contextId: contextId,
                                       itemsBytes: itemsBytes ?? MenuBusServer.cost(items)) { previous in
            try Wire.decodeElements(items, field: "items", previous: previous)
        }
        heldItemSpans.drop(owner: caller, contextId: contextId)
        return revision
    }

    /// `updateItems` with the elements read from the call's body
    /// (`Wire.readElements`), checked here.
    package func updateItems(caller: String, contextId: String, read elements: [MenuElement],
                             itemsBytes: Int) throws -> UInt32 {
        try updateItems(caller: caller, contextId: contextId, itemsBytes: itemsBytes) { previous in
            try Wire.checkElements(elements, field: "items", previous: previous)
        }
    }

    /// Counted and refused before anything is decoded or stored; `decode`
    /// gets the elements the context held.
    private func updateItems(caller: String, contextId: String, itemsBytes: Int,
                             _ decode: ([MenuElement]) throws -> [MenuElement]) throws -> UInt32 {
        var context = try ownContext(caller, contextId)
        try checkContextGrowth(caller: caller, contextId: contextId, adding: itemsBytes, releasing: context.itemsBytes, field: "items")
        context.items = try decode(context.items)
        context.itemsBytes = itemsBytes
        context.revision = nextRevision()
        registeredApps.store(context, of: caller)
        contextChanged(owner: caller, contextId: contextId)
        return context.revision
    }

    package func updateSelection(caller: String, contextId: String, selection: DBusValue,
                                 selectionBytes: Int? = nil) throws {
        var context = try ownContext(caller, contextId)
        let selectionBytes = selectionBytes ?? MenuBusServer.cost(selection)
        try checkContextGrowth(caller: caller, contextId: contextId, adding: selectionBytes,
                               releasing: context.selectionBytes, field: "selection")
        context.selection = try Wire.decodeSelection(selection, field: "selection")
        context.selectionBytes = selectionBytes
        context.revision = nextRevision()
        registeredApps.store(context, of: caller)
        contextChanged(owner: caller, contextId: contextId)
    }

    package func removeContext(caller: String, contextId: String) throws {
        let removed = try ownContext(caller, contextId)
        registeredApps.removeContext(contextId, of: caller)
        composedReplies.drop(owner: caller, contextId: contextId)
        heldItemSpans.drop(owner: caller, contextId: contextId)
        defer { releasedMemory(removed.heldBytes) }
        for presentation in presentations.showing(owner: caller, contextId: contextId) {
            closePresentation(presentation)
        }
    }

    /// A context of the caller's own: only the owning connection changes it.
    func ownContext(_ caller: String, _ contextId: String) throws -> PublishedContext {
        let app = try registeredApp(caller)
        // Context ids are per connection: another app's context of the same
        // id is out of reach, so it is simply not found here.
        guard let context = app.contexts[contextId] else {
            throw BusError(.noSuchContext, "contextId: this connection has no context '\(contextId)'")
        }
        return context
    }

    /// The unique name owning `contextId`: the caller for `""`, a unique name
    /// as given, or the most recent live registration of an app id that has it.
    func resolveOwner(_ owner: String, caller: String, contextId: String) throws -> (String, PublishedContext) {
        let unique: String
        if owner.isEmpty {
            unique = caller
        } else if owner.hasPrefix(":") {
            unique = owner
        } else {
            let candidates = preferredRegistrations(apps.values.filter { $0.appId == owner && $0.contexts[contextId] != nil })
            guard let latest = candidates.max(by: { $0.sequence < $1.sequence }) else {
                if apps.values.contains(where: { $0.appId == owner }) {
                    throw BusError(.noSuchContext, "contextId: app '\(owner)' has no context '\(contextId)'")
                }
                throw BusError(.notRegistered, "owner: no app '\(owner)' is registered")
            }
            unique = latest.uniqueName
        }
        guard let app = apps[unique] else {
            throw BusError(.notRegistered, owner.isEmpty ? "owner: the caller is not registered" : "owner: '\(owner)' is not registered")
        }
        try checkReach(caller: caller, owner: unique, contextId: contextId)
        guard let context = app.contexts[contextId] else {
            throw BusError(.noSuchContext, "contextId: '\(app.appId)' has no context '\(contextId)'")
        }
        return (unique, context)
    }

    // MARK: Composition

    /// The menu by the rules, deferred elements still in it.
    /// The composed menu, MenuBus's titles in `titles`' language and the
    /// declared providers' in `locale`'s (nil: the session's).
    package func compose(_ kind: MenuKind, _ context: PublishedContext, appId: String, titles: SystemTitles,
                         locale: String? = nil) -> [MenuElement] {
        let providers = providerInfos(locale: locale)
        menuExcess.check(appId: appId, contextId: context.id, revision: context.revision, items: context.items)
        switch kind {
        case .edit:
            return EditMenu.compose(context: context.info, selection: context.selection,
                                    undo: undoSummary(appId: appId, context: context),
                                    providers: providers, appItems: context.items, titles: titles,
                                    usage: providerUsage.counts)
        case .context:
            return ContextMenu.compose(context: context.info, items: context.items, providers: providers,
                                       selection: context.selection, titles: titles, usage: providerUsage.counts)
        }
    }

    /// `resolveOwner` for a menu: a context with `enabled` false offers
    /// none, presented or read.
    func resolveMenuContext(_ owner: String, caller: String, contextId: String) throws -> (String, PublishedContext) {
        let (unique, context) = try resolveOwner(owner, caller: caller, contextId: contextId)
        guard context.info.enabled else {
            throw BusError(.nothingToShow, "contextId: '\(contextId)' has enabled false; it offers no menu now")
        }
        return (unique, context)
    }

    package func composedMenu(_ kind: MenuKind, caller: String, owner: String, contextId: String,
                      options: DBusValue) throws -> (UInt32, [MenuElement], ComposedMenuReplies.Key) {
        try ServiceValidation.optionCount(options, field: "options")
        let read = try PresentationOptions(wire: options)
        let (unique, context) = try resolveMenuContext(owner, caller: caller, contextId: contextId)
        // A one-off read: cached deferred content shows, others are left out
        // (nothing is asked of the app for a menu nobody presents).
        let composed = compose(kind, context, appId: apps[unique]?.appId ?? "",
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

    /// `kind` `context` or `edit`: an app's items; `composed-context` or
    /// `composed-edit`: a menu as menubusd served it, whose `menubus:` ids
    /// are MenuBus's own.
    package func lint(kind: String, items: DBusValue) throws -> DBusValue {
        let composed = kind.hasPrefix("composed-")
        guard let menuKind = MenuKind(rawValue: composed ? String(kind.dropFirst("composed-".count)) : kind) else {
            let kinds = MenuKind.allCases.map(\.rawValue)
            throw BusError.invalidArgs("kind: '\(kind)' is not one of \((kinds + kinds.map { "composed-" + $0 }).joined(separator: ", "))")
        }
        let elements = try Wire.decodeElementsForLint(items, field: "items")
        return Wire.encode(Lint.check(kind: menuKind, elements: elements, composed: composed))
    }

    /// Every context, or for a sandboxed caller only its own app's.
    package func listContexts(caller: String) -> DBusValue {
        var rows: [(String, String, String)] = []
        for app in apps.values where mayReach(caller: caller, owner: app.uniqueName) {
            for contextId in app.contexts.keys {
                rows.append((app.uniqueName, app.appId, contextId))
            }
        }
        rows.sort { ($0.1, $0.2, $0.0) < ($1.1, $1.2, $1.0) }
        return .array("(sss)", rows.map { .structure([.string($0.0), .string($0.1), .string($0.2)]) })
    }

    // MARK: Peers

    /// A connection left the bus: its contexts and presentations go at once.
    func peerLeft(_ uniqueName: String) {
        identities[uniqueName] = nil
        let held = heldBytes(by: uniqueName)
        defer { releasedMemory(held) }
        providerOwnerLeft(uniqueName)
        exportsPeerLeft(uniqueName)
        composedReplies.drop(owner: uniqueName)
        heldItemSpans.drop(owner: uniqueName)
        for presentation in presentations.values
        where presentation.owner == uniqueName || presentation.presenter == uniqueName {
            closePresentation(presentation)
        }
        if let app = registeredApps.remove(uniqueName) {
            Log.debug("\(app.appId) (\(uniqueName)) left; dropped \(app.contexts.count) contexts")
            if !apps.values.contains(where: { $0.appId == app.appId }) {
                closeOpenUndoGroups(appId: app.appId)
                releaseUndoMemory(of: app.appId)
            }
        }
    }
}
