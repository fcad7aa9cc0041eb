import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The presented menus at work: `PresentMenu`, each menu's
/// `org.menubus.MenuBus1.Menu` object and its exports in the desktop's
/// menu protocols (`Export/`), recomposing a menu when its inputs change,
/// coalescing its signals, asking for deferred elements and delivering a
/// choice. The menus themselves, their charges and their exports are kept
/// in `presentations`; MenuBusServer tells this component what changed
/// (`contextChanged`, `providersChanged`, `undoChanged`, `peerLeft`).
final class PresentedMenus {
    unowned let connection: Connection
    unowned let loop: MessageLoop
    /// The live menus by number, their charges and their exports.
    let presentations: Presentations
    unowned let contexts: Contexts
    unowned let providers: Providers
    unowned let trust: Trust
    unowned let ledger: Ledger
    unowned let composer: Composer
    /// Seconds to wait for an app's `ProvideElements` before the element disappears.
    let deferredTimeout: Double

    init(connection: Connection, loop: MessageLoop, presentations: Presentations, contexts: Contexts,
         providers: Providers, trust: Trust, ledger: Ledger, composer: Composer, deferredTimeout: Double) {
        self.connection = connection
        self.loop = loop
        self.presentations = presentations
        self.contexts = contexts
        self.providers = providers
        self.trust = trust
        self.ledger = ledger
        self.composer = composer
        self.deferredTimeout = deferredTimeout
        exportMenus()
    }

    /// Serves every presentation's object at once, under
    /// `Presentation.pathPrefix`: the interfaces are declared once, each
    /// handler finds its presentation from the call's path; a path is an
    /// object from the menu's export until its exports go.
    private func exportMenus() {
        let interfaces = [menuInterface()] + PresentedMenus.menuExports.flatMap { $0.interfaces(self) }
        connection.exportSubtree(Presentation.pathPrefix, interfaces,
                                 find: { [unowned self] path in
                                     Presentation.number(at: path).map { self.presentations.exports($0) != nil } ?? false
                                 },
                                 children: { [unowned self] in self.presentations.exportedPaths },
                                 access: { [unowned self] path, sender, interface in
                                     self.menuAccess(path, sender: sender, interface: interface)
                                 })
    }

    /// The number of the presentation whose object `call` reached.
    static func number(_ call: MethodCall) throws -> UInt64 {
        guard let number = Presentation.number(at: call.path) else {
            throw BusError(name: BusError.Standard.unknownObject, message: "No object at path \(call.path)")
        }
        return number
    }

    /// Signals of one menu are at most this often (ns); the first of a
    /// burst goes at once, the last state always goes.
    static let signalInterval: UInt64 = 16_000_000

    package func present(caller: String, owner: String, contextId: String, kind: String, options: DBusValue) throws -> ObjectPath {
        guard let menuKind = MenuKind(rawValue: kind) else {
            throw BusError.invalidArgs("kind: '\(kind)' is not 'context' or 'edit'")
        }
        try ServiceValidation.optionCount(options, field: "options")
        let presentOptions = try PresentationOptions(wire: options)
        let textDirection = try TextDirection.from(options: options)
        let (ownerName, context) = try contexts.resolveMenuContext(owner, caller: caller, contextId: contextId)
        try presentations.checkRoom(for: caller)
        let cost = Ledger.presentationCost(of: context)
        try ledger.checkBudget(adding: cost, for: caller, field: "contextId")
        let presentation = presentations.add(cost: cost) { number in
            Presentation(number: number, kind: menuKind, owner: ownerName,
                         contextId: contextId, presenter: caller, options: presentOptions,
                         titles: Localization.shared.titles(for: presentOptions.locale))
        }
        // The presenter's word, else the direction of the menu's language.
        presentation.textDirection = textDirection ?? (presentation.titles.rightToLeft ? .rtl : .ltr)
        // Compose now, so deferred elements are asked for before the reply goes.
        refresh(presentation)
        // An empty menu is not presented and closes (UIKit shows none when
        // there is nothing in it); a waiting deferred element shows
        // "Loading…", so nothing was asked of the owner for a menu refused here.
        guard presentation.presented(title: context.info.title ?? "", selectionRect: context.selection.rect,
                                     preview: context.info.preview) else {
            presentations.remove(presentation.number)
            throw BusError(.nothingToShow, "contextId: the \(menuKind.rawValue) menu of '\(contextId)' has nothing to show now")
        }
        presentations.startExports(presentation.number, owner: presentation.owner, presenter: presentation.presenter)
        notifyPresented(presentation)
        return presentation.path
    }

    /// Who may call a presented menu's object (at `path`), through every
    /// protocol and Properties: its presenter, and whoever may reach its
    /// owner's contexts (`Trust.mayReach`). Each reader is noted per
    /// protocol, so the menu's change signals go to its readers alone.
    private func menuAccess(_ path: ObjectPath, sender: String, interface: String) -> BusError? {
        guard let number = Presentation.number(at: path), let state = presentations.exports(number) else { return nil }
        // Once the owner has left, only unsandboxed readers may watch the
        // menu close: who the owner was is not asked of the bus again.
        let ownerLeft = contexts[state.owner] == nil
        guard sender == state.presenter
              || (ownerLeft ? trust.identity(of: sender).isHost : trust.mayReach(caller: sender, owner: state.owner)) else {
            return BusError(.accessDenied, "a sandboxed app may read only the menus it presented or its own app's, not this menu of \(contexts[state.owner]?.appId ?? state.owner)")
        }
        if let kind = PresentationExports.Readership(interface: interface) { state.noteReader(sender, of: kind) }
        return nil
    }

    /// Tells the owner its menu was presented (`MenuPresented`, as
    /// `QMenu::aboutToShow` or `menuWillOpen`), after the presenter's reply,
    /// without a reply asked for or waited on.
    private func notifyPresented(_ presentation: Presentation) {
        loop.addTimer(after: 0) { [weak self] in
            guard let self, self.presentations[presentation.number] === presentation,
                  let app = self.contexts[presentation.owner] else { return }
            self.connection.notify(MenuBusAPI.Client.menuPresented, destination: app.uniqueName, path: app.clientPath,
                                   presentation.contextId, presentation.kind.rawValue, presentation.path)
        }
    }

    /// `TextDirection` of the exports at `path`: the presenter's
    /// `text-direction`, else `rtl` where the menu's language is written right to left.
    func textDirection(at path: ObjectPath) -> String {
        (presentation(at: path)?.textDirection ?? TextDirection.presentationDefault()).rawValue
    }

    /// The live presentation whose object is at `path`.
    private func presentation(at path: ObjectPath) -> Presentation? {
        Presentation.number(at: path).flatMap { presentations[$0] }
    }

    /// The `org.menubus.MenuBus1.Menu` interface of every presentation.
    private func menuInterface() -> Interface {
        var menu = Interface(MenuBusNames.menuInterface)
        typealias API = MenuBusAPI.Menu
        menu.deferrableMethod(API.getLayout) { [unowned self] call in
            let presentation = try self.livePresentation(PresentedMenus.number(call))
            self.bringUpToDate(presentation)
            call.reply(with: try presentation.layoutReply())
            return nil
        }
        menu.method(API.activate) { [unowned self] call, itemId, platformData in
            try self.activate(self.livePresentation(PresentedMenus.number(call)), caller: call.sender, itemId: itemId,
                              platformData: platformData)
        }
        menu.method(API.dismiss) { [unowned self] call in
            let presentation = try self.livePresentation(PresentedMenus.number(call))
            try self.trust.checkChooser(presentation, caller: call.sender, sendsSelectedText: false)
            self.closePresentation(presentation)
        }
        menu.signal(API.layoutChanged)
        menu.signal(API.closed)
        menu.signal(API.providerResult)
        // What a presenter titles and places the menu with.
        menu.property("Title", String.self, at: { [unowned self] in self.presentation(at: $0)?.shownTitle ?? "" })
        menu.property("SelectionRect", signature: "(iiii)", at: { [unowned self] in
            WireValue.rectValue(self.presentation(at: $0)?.shownSelectionRect ?? Rect(x: 0, y: 0))
        })
        menu.property("Anchor", signature: "(iiii)", emitsValue: false, at: { [unowned self] in
            WireValue.rectValue(self.presentation(at: $0)?.options.anchor ?? Rect(x: 0, y: 0))
        })
        menu.property("Kind", String.self, emitsValue: false, at: { [unowned self] in
            self.presentation(at: $0)?.kind.rawValue ?? ""
        })
        // A PNG may be large: a change invalidates it, and who draws it reads it.
        menu.property("Preview", signature: "a{sv}", emitsValue: false, at: { [unowned self] in
            self.presentation(at: $0)?.shownPreview?.wireValue ?? .array("{sv}", [])
        })
        menu.property("Appearance", String.self, emitsValue: false, at: { [unowned self] in
            self.presentation(at: $0)?.options.appearance.rawValue ?? ""
        })
        return menu
    }

    func livePresentation(_ number: UInt64) throws -> Presentation {
        guard let presentation = presentations[number] else {
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed")
        }
        return presentation
    }

    // MARK: Composing and signalling

    /// Recomposes a stale presentation before a caller reads it; a change
    /// still goes out as its (coalesced) signal.
    func bringUpToDate(_ presentation: Presentation) {
        if presentation.composition == .stale, refresh(presentation) { scheduleSignal(presentation) }
    }

    /// Composes the presentation from the current context and providers,
    /// resolves deferred elements and asks for the missing ones. Returns
    /// true when the layout changed.
    @discardableResult
    func refresh(_ presentation: Presentation) -> Bool {
        guard let app = contexts[presentation.owner], let context = app.contexts[presentation.contextId] else { return false }
        let composed = composer.compose(presentation.kind, context, appId: app.appId, titles: presentation.titles,
                               locale: presentation.options.locale)
        var available = presentation.provided
        for element in composed where element.kind == .deferred && element.cached && available[element.id] == nil {
            if let cached = context.deferredCache[element.id] { available[element.id] = cached }
        }
        presentations.charge(presentation.number, Ledger.presentationCost(of: context, provided: presentation.providedBytes))
        let resolution = DeferredElements.resolve(composed, provided: available, failed: presentation.failed,
                                                  loadingTitle: presentation.titles.loading)
        presentation.showWaiting(Set(resolution.waiting.lazy.map(\.id)))
        for element in resolution.waiting where presentation.ask(element.id) {
            askForDeferred(element, in: presentation)
        }
        updateShownProperties(presentation, context)
        // What the presenter's toolkit shows itself stays out for the life
        // of the presentation, content provided later included.
        let shown = CommandOmission.apply(presentation.options.omittedCommands, to: resolution.elements)
        return presentation.update(shown, title: context.info.title)
    }

    /// `Title` and `SelectionRect` follow the context; a change is signalled
    /// once the object is exported.
    private func updateShownProperties(_ presentation: Presentation, _ context: PublishedContext) {
        let changed = presentation.show(title: context.info.title ?? "", selectionRect: context.selection.rect,
                                        preview: context.info.preview)
        if !changed.isEmpty && presentation.phase.isSignalled {
            connection.propertiesChanged(presentation.path, MenuBusNames.menuInterface, changed,
                                         destinations: presentations.exports(presentation.number)?.signalTargets(.menu)
                                             ?? [presentation.presenter])
        }
    }

    /// Marks every live menu of the context stale and schedules its signal.
    func contextChanged(owner: String, contextId: String) {
        for presentation in presentations.markStale(owner: owner, contextId: contextId) {
            scheduleSignal(presentation)
        }
    }

    /// Every live menu may show providers: all of them recompose.
    func providersChanged() {
        for presentation in presentations.markAllStale() {
            scheduleSignal(presentation)
        }
    }

    /// The undo state of document `documentId` of `appId` changed: the live
    /// edit menus of its contexts recompose.
    func undoChanged(appId: String, documentId: String) {
        for presentation in presentations.values where presentation.kind == .edit {
            guard let owner = contexts[presentation.owner], owner.appId == appId,
                  owner.contexts[presentation.contextId]?.info.document == documentId else { continue }
            presentation.markStale()
            scheduleSignal(presentation)
        }
    }

    /// Context `contextId` of `owner` went: its live menus close.
    func contextRemoved(owner: String, contextId: String) {
        for presentation in presentations.showing(owner: owner, contextId: contextId) {
            closePresentation(presentation)
        }
    }

    /// A connection left the bus: what it held in the exports goes, and the
    /// menus it owns or presented close.
    func peerLeft(_ uniqueName: String) {
        exportsPeerLeft(uniqueName)
        for presentation in presentations.values
        where presentation.owner == uniqueName || presentation.presenter == uniqueName {
            closePresentation(presentation)
        }
    }

    /// Coalesces signals: flush at once when the last one is older than
    /// `signalInterval`, else once at the end of the interval.
    func scheduleSignal(_ presentation: Presentation) {
        switch presentation.signalRequested(now: MessageLoop.now(), interval: PresentedMenus.signalInterval) {
        case .scheduled:
            return
        case .now:
            flushSignal(presentation)
        case .after(let wait):
            loop.addTimer(after: wait) { [weak self, weak presentation] in
                guard let self, let presentation, self.presentations[presentation.number] === presentation else { return }
                presentation.flushTimerFired()
                self.flushSignal(presentation)
            }
        }
    }

    private func flushSignal(_ presentation: Presentation) {
        if presentation.composition == .stale { refresh(presentation) }
        guard presentation.layoutToSignal(now: MessageLoop.now()) else { return }
        // The other protocols' small change signals first: the whole menu
        // in LayoutChanged costs more to build and for the bus to pass on,
        // and their consumers would wait behind it.
        exportsLayoutChanged(presentation)
        let items = Wire.encode(presentation.elements)
        for target in presentations.exports(presentation.number)?.signalTargets(.menu) ?? [presentation.presenter] {
            connection.emit(MenuBusAPI.Menu.layoutChanged, at: presentation.path, presentation.revision, items,
                            destination: target)
        }
    }
}
