import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The registered apps and the contexts they publish (their store is
/// `RegisteredApps`), and the bytes the last `UpdateItems` of a few
/// contexts was read from. Only the owning connection changes a context;
/// others reach it within the trust model (`Trust`). A change is told to
/// `changed`, a removal to `removed`: MenuBusServer wires them to the
/// presented menus.
package final class Contexts {
    private let apps: RegisteredApps
    /// The bytes the last `UpdateItems` of a few contexts was read from.
    private let heldItemSpans = HeldItemSpans()
    unowned let trust: Trust
    private unowned let ledger: Ledger
    /// A context of `owner` changed: its live menus recompose.
    var changed: (_ owner: String, _ contextId: String) -> Void = { _, _ in }
    /// A context of `owner` went: its live menus close, its composed replies go.
    var removed: (_ owner: String, _ contextId: String) -> Void = { _, _ in }

    init(apps: RegisteredApps, trust: Trust, ledger: Ledger) {
        self.apps = apps
        self.trust = trust
        self.ledger = ledger
    }

    // MARK: Reading

    /// Registered apps by unique name.
    var byName: [String: App] { apps.byName }

    /// The registered app at `uniqueName`.
    subscript(uniqueName: String) -> App? { apps[uniqueName] }

    /// Contexts published by all apps.
    var contextCount: Int { apps.contextCount }

    /// Whether any connection is registered as `appId`.
    func isRegistered(appId: String) -> Bool {
        apps.byName.values.contains { $0.appId == appId }
    }

    /// The live context `contextId` of the app at `owner`.
    func context(_ contextId: String, of owner: String) -> PublishedContext? {
        apps[owner]?.contexts[contextId]
    }

    /// Keeps what the owner provided for its cached deferred element, counted as `bytes`.
    func cache(_ content: [MenuElement], bytes: Int, for elementId: String, in contextId: String, of owner: String) {
        apps.cache(content, bytes: bytes, for: elementId, in: contextId, of: owner)
    }

    // MARK: Apps

    package func register(caller: String, appId: String, clientPath: ObjectPath, options: DBusValue) throws {
        try ServiceValidation.appId(appId)
        try ServiceValidation.optionCount(options, field: "options")
        try trust.checkRegistration(caller: caller, appId: appId, apps: apps.byName.values)
        guard try apps.register(caller, appId: appId, clientPath: clientPath) else { return }
        Log.debug("\(caller) registered as \(appId)")
    }

    /// The next context revision, from one counter for the whole daemon: a
    /// context removed and published again never goes back to a revision a
    /// reader already saw.
    private func nextRevision() -> UInt32 {
        apps.nextRevision()
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
    /// reading counted them (`Ledger.cost` otherwise).
    package func publishContext(caller: String, contextId: String, context: DBusValue, items: DBusValue,
                                sizes: (context: Int, items: Int)? = nil) throws -> UInt32 {
        var app = try registeredApp(caller)
        try ServiceValidation.contextId(contextId)
        let infoBytes = (sizes?.context ?? Ledger.cost(context)) + Budgets.contextBytes
        let itemsBytes = Budgets.heldBytes(wire: sizes?.items ?? Ledger.cost(items), elements: Budgets.elementCount(items))
        let old = app.contexts[contextId]
        let adding = infoBytes + itemsBytes, releasing = (old?.infoBytes ?? 0) + (old?.itemsBytes ?? 0)
        // A refusal names the argument that grows the most.
        let field = infoBytes - (old?.infoBytes ?? Budgets.contextBytes) > itemsBytes - (old?.itemsBytes ?? 0) ? "context" : "items"
        // Counted and refused before the items are decoded or anything is
        // stored; the context is decoded first, as the menus showing it share
        // its preview's PNG (decoding refuses one past its limit unread).
        let info = try Wire.decodeContext(context, field: "context")
        try trust.checkPreviewImage(info.preview, caller: caller)
        let sharedGrowth = (info.preview?.imageBytes ?? 0) - (old?.info.preview?.imageBytes ?? 0)
        try ledger.checkContextGrowth(caller: caller, contextId: contextId, adding: adding, releasing: releasing,
                                      shared: sharedGrowth, field: field)
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
        if let stored = app.contexts[contextId] { apps.store(stored, of: caller) }
        heldItemSpans.drop(owner: caller, contextId: contextId)
        changed(caller, contextId)
        return app.contexts[contextId]?.revision ?? 0
    }

    package func updateItems(caller: String, contextId: String, items: DBusValue, itemsBytes: Int? = nil) throws -> UInt32 {
        let wireBytes = itemsBytes ?? Ledger.cost(items)
        let revision = try updateItems(caller: caller, contextId: contextId,
                                       itemsBytes: Budgets.heldBytes(wire: wireBytes, elements: Budgets.elementCount(items))) { previous in
            try Wire.decodeElements(items, field: "items", previous: previous)
        }
        heldItemSpans.drop(owner: caller, contextId: contextId)
        return revision
    }

    /// `updateItems` with the elements read from the call's body
    /// (`Wire.readElements`), checked here.
    package func updateItems(caller: String, contextId: String, read elements: [MenuElement],
                             itemsBytes: Int) throws -> UInt32 {
        try updateItems(caller: caller, contextId: contextId,
                        itemsBytes: Budgets.heldBytes(wire: itemsBytes, elements: elements.count)) { previous in
            try Wire.checkElements(elements, field: "items", previous: previous)
        }
    }

    /// Counted and refused before anything is decoded or stored; `decode`
    /// gets the elements the context held.
    private func updateItems(caller: String, contextId: String, itemsBytes: Int,
                             _ decode: ([MenuElement]) throws -> [MenuElement]) throws -> UInt32 {
        var context = try ownContext(caller, contextId)
        try ledger.checkContextGrowth(caller: caller, contextId: contextId, adding: itemsBytes, releasing: context.itemsBytes, field: "items")
        context.items = try decode(context.items)
        context.itemsBytes = itemsBytes
        context.revision = nextRevision()
        apps.store(context, of: caller)
        changed(caller, contextId)
        return context.revision
    }

    package func updateSelection(caller: String, contextId: String, selection: DBusValue,
                                 selectionBytes: Int? = nil) throws {
        var context = try ownContext(caller, contextId)
        let selectionBytes = selectionBytes ?? Ledger.cost(selection)
        try ledger.checkContextGrowth(caller: caller, contextId: contextId, adding: selectionBytes,
                               releasing: context.selectionBytes, field: "selection")
        context.selection = try Wire.decodeSelection(selection, field: "selection")
        context.selectionBytes = selectionBytes
        context.revision = nextRevision()
        context.focusRevision = context.selection.focused ? context.revision : nil
        apps.store(context, of: caller)
        changed(caller, contextId)
    }

    package func removeContext(caller: String, contextId: String) throws {
        let removed = try ownContext(caller, contextId)
        apps.removeContext(contextId, of: caller)
        heldItemSpans.drop(owner: caller, contextId: contextId)
        defer { ledger.releasedMemory(removed.heldBytes) }
        self.removed(caller, contextId)
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
            let candidates = trust.preferredRegistrations(apps.byName.values.filter { $0.appId == owner && $0.contexts[contextId] != nil })
            guard let latest = candidates.max(by: { $0.sequence < $1.sequence }) else {
                if isRegistered(appId: owner) {
                    throw BusError(.noSuchContext, "contextId: app '\(owner)' has no context '\(contextId)'")
                }
                throw BusError(.notRegistered, "owner: no app '\(owner)' is registered")
            }
            unique = latest.uniqueName
        }
        guard let app = apps[unique] else {
            throw BusError(.notRegistered, owner.isEmpty ? "owner: the caller is not registered" : "owner: '\(owner)' is not registered")
        }
        try trust.checkReach(caller: caller, owner: unique, appId: app.appId, contextId: contextId)
        guard let context = app.contexts[contextId] else {
            throw BusError(.noSuchContext, "contextId: '\(app.appId)' has no context '\(contextId)'")
        }
        return (unique, context)
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
        return Wire.encode(Lint.check(kind: menuKind, elements: elements, composed: composed,
                                      titles: Localization.shared.titles()))
    }

    /// Every context, or for a sandboxed caller only its own app's.
    package func listContexts(caller: String) -> DBusValue {
        var rows: [(String, String, String)] = []
        for app in apps.byName.values where trust.mayReach(caller: caller, owner: app.uniqueName) {
            for contextId in app.contexts.keys {
                rows.append((app.uniqueName, app.appId, contextId))
            }
        }
        rows.sort { ($0.1, $0.2, $0.0) < ($1.1, $1.2, $1.0) }
        return .array("(sss)", rows.map { .structure([.string($0.0), .string($0.1), .string($0.2)]) })
    }

    // MARK: UpdateItems read from the call's bytes

    /// `UpdateItems`' context id, elements (unchecked; those read as the
    /// context held them, `held(contextId)`, are the held ones), the items'
    /// budget bytes and the bytes each element was read from, read from the
    /// call's body; nil where decoding its values must name a fault
    /// (`Wire.readElements`). `held` gives the context's items and the
    /// spans they were read from, if kept (`HeldItemSpans`).
    package static func readUpdateItems(
        _ cursor: inout BodyCursor,
        held: (String) -> (items: [MenuElement], spans: ElementSpans?) = { _ in ([], nil) }
    ) throws -> (contextId: String, elements: [MenuElement], itemsBytes: Int, spans: ElementSpans?)? {
        let contextId = try cursor.string()
        let start = cursor.bytesRead
        let (items, spans) = held(contextId)
        guard let read = Wire.readElements(&cursor, reusing: items, spans: spans) else { return nil }
        return (contextId, read.elements, cursor.bytesRead - start, read.spans)
    }

    /// `UpdateItems`: a live change carries the whole menu, read from the
    /// call's bytes, its values decoded only to name a fault.
    func updateItems(_ call: MethodCall) throws -> UInt32 {
        // That elements taken unread equal reading them is checked by
        // ElementBodyReadingTests and the `elements` fuzz target, not here.
        let read = try? call.readBody { cursor in
            try Contexts.readUpdateItems(&cursor) { contextId in
                let items = (try? self.ownContext(call.sender, contextId))?.items ?? []
                return (items, self.heldItemSpans.spans(owner: call.sender, contextId: contextId, items: items))
            }
        }
        if let (contextId, elements, itemsBytes, spans) = read {
            let revision = try updateItems(caller: call.sender, contextId: contextId, read: elements,
                                           itemsBytes: itemsBytes)
            heldItemSpans.keep(spans, of: elements, owner: call.sender, contextId: contextId)
            return revision
        }
        let (values, sizes) = try call.decodedArguments()
        let (contextId, items) = try MenuBusAPI.Manager.updateItems.inputs.decode(values)
        return try updateItems(caller: call.sender, contextId: contextId, items: items,
                               itemsBytes: sizes.indices.contains(1) ? sizes[1] : nil)
    }

    // MARK: Peers

    /// A connection left the bus: its registration and contexts go; the
    /// app it was, if it registered.
    func peerLeft(_ uniqueName: String) -> App? {
        heldItemSpans.drop(owner: uniqueName)
        guard let app = apps.remove(uniqueName) else { return nil }
        Log.debug("\(app.appId) (\(uniqueName)) left; dropped \(app.contexts.count) contexts")
        return app
    }
}
