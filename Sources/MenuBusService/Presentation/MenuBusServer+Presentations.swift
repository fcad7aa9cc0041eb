import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

extension MenuBusServer {
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
        let (ownerName, context) = try resolveMenuContext(owner, caller: caller, contextId: contextId)
        try presentations.checkRoom(for: caller)
        let cost = presentationCost(of: context)
        try checkBudget(adding: cost, for: caller, field: "contextId")
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
        connection.export(presentation.path, [menuInterface(presentation.number)]
                            + exportInterfaces(presentation.number, owner: presentation.owner, presenter: presentation.presenter),
                          access: menuAccess(presentation.number))
        notifyPresented(presentation)
        return presentation.path
    }

    /// Tells the owner its menu was presented (`MenuPresented`, as
    /// `QMenu::aboutToShow` or `menuWillOpen`), after the presenter's reply,
    /// without a reply asked for or waited on.
    private func notifyPresented(_ presentation: Presentation) {
        loop.addTimer(after: 0) { [weak self] in
            guard let self, self.presentations[presentation.number] === presentation,
                  let app = self.apps[presentation.owner] else { return }
            self.connection.notify(MenuBusAPI.Client.menuPresented, destination: app.uniqueName, path: app.clientPath,
                                   presentation.contextId, presentation.kind.rawValue, presentation.path)
        }
    }

    /// `TextDirection` of the exports: the presenter's `text-direction`,
    /// else `rtl` where the menu's language is written right to left.
    func textDirection(_ number: UInt64) -> String {
        (presentations[number]?.textDirection ?? TextDirection.presentationDefault()).rawValue
    }

    /// The `org.menubus.MenuBus1.Menu` interface of presentation `number`.
    package func menuInterface(_ number: UInt64) -> Interface {
        var menu = Interface(MenuBusNames.menuInterface)
        typealias API = MenuBusAPI.Menu
        menu.deferrableMethod(API.getLayout) { [unowned self] call in
            let presentation = try self.livePresentation(number)
            self.bringUpToDate(presentation)
            call.reply(with: try presentation.layoutReply())
            return nil
        }
        menu.method(API.activate) { [unowned self] call, itemId, platformData in
            try self.activate(self.livePresentation(number), caller: call.sender, itemId: itemId, platformData: platformData)
        }
        menu.method(API.dismiss) { [unowned self] call in
            let presentation = try self.livePresentation(number)
            try self.checkChooser(presentation, caller: call.sender, sendsSelectedText: false)
            self.closePresentation(presentation)
        }
        menu.signal(API.layoutChanged)
        menu.signal(API.closed)
        menu.signal(API.providerResult)
        // What a presenter titles and places the menu with.
        menu.property("Title", String.self) { [unowned self] in self.presentations[number]?.shownTitle ?? "" }
        menu.property("SelectionRect", signature: "(iiii)") { [unowned self] in
            WireValue.rectValue(self.presentations[number]?.shownSelectionRect ?? Rect(x: 0, y: 0))
        }
        menu.property("Anchor", signature: "(iiii)", emitsValue: false) { [unowned self] in
            WireValue.rectValue(self.presentations[number]?.options.anchor ?? Rect(x: 0, y: 0))
        }
        menu.property("Kind", String.self, emitsValue: false) { [unowned self] in
            self.presentations[number]?.kind.rawValue ?? ""
        }
        // A PNG may be large: a change invalidates it, and who draws it reads it.
        menu.property("Preview", signature: "a{sv}", emitsValue: false) { [unowned self] in
            self.presentations[number]?.shownPreview?.wireValue ?? .array("{sv}", [])
        }
        menu.property("Appearance", String.self, emitsValue: false) { [unowned self] in
            self.presentations[number]?.options.appearance.rawValue ?? ""
        }
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
        guard let app = apps[presentation.owner], let context = app.contexts[presentation.contextId] else { return false }
        let composed = compose(presentation.kind, context, appId: app.appId, titles: presentation.titles,
                               locale: presentation.options.locale)
        var available = presentation.provided
        for element in composed where element.kind == .deferred && element.cached && available[element.id] == nil {
            if let cached = context.deferredCache[element.id] { available[element.id] = cached }
        }
        presentations.charge(presentation.number, presentationCost(of: context, provided: presentation.providedBytes))
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

    /// Coalesces signals: flush at once when the last one is older than
    /// `signalInterval`, else once at the end of the interval.
    func scheduleSignal(_ presentation: Presentation) {
        switch presentation.signalRequested(now: MessageLoop.now(), interval: MenuBusServer.signalInterval) {
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

    // MARK: Deferred elements

    /// Asks the owner for a deferred element, without waiting; the answer
    /// (or its absence) recomposes the menu.
    private func askForDeferred(_ element: MenuElement, in presentation: Presentation) {
        guard let app = apps[presentation.owner] else { return }
        let number = presentation.number, contextId = presentation.contextId, elementId = element.id
        let cached = element.cached
        deferredCallsStarted += 1
        connection.call(MenuBusAPI.Client.provideElements, destination: app.uniqueName, path: app.clientPath,
                        contextId, elementId, timeout: configuration.deferredTimeout) { [weak self] result in
            guard let self else { return }
            var content: [MenuElement]?
            var contentBytes = 0
            switch result {
            case .success(let provided):
                do {
                    // Counted before it is decoded: the presenter holds it in
                    // this menu, the owner in its cache.
                    contentBytes = MenuBusServer.cost(provided)
                    if let presentation = self.presentations[number] {
                        try self.checkBudget(adding: contentBytes * Budgets.presentationFactor, for: presentation.presenter,
                                             field: "elements")
                    }
                    let elements = try Wire.decodeElements(provided, field: "elements")
                    // Content is filled once: a deferred element inside it would never be asked for.
                    guard !elements.contains(where: { $0.kind == .deferred }) else {
                        throw BusError.invalidArgs("elements: provided content may not hold deferred elements")
                    }
                    content = elements
                } catch {
                    Log.rateLimitedWarning("deferred:\(app.appId)", "\(app.appId) provided bad elements for '\(elementId)': \(error)")
                }
            case .failure(let error):
                Log.rateLimitedWarning("deferred:\(app.appId)", "\(app.appId) did not provide '\(elementId)': \(error.name)")
            }
            // Cache only while the context still has that cached deferred
            // element: an answer that outlived it must not come back later.
            if let content, cached, let live = self.apps[app.uniqueName]?.contexts[contextId],
               live.items.contains(where: { $0.id == elementId && $0.kind == .deferred && $0.cached }) {
                do {
                    try self.checkContextGrowth(caller: app.uniqueName, contextId: contextId, adding: contentBytes,
                                                releasing: live.cacheBytes[elementId] ?? 0, field: "elements")
                    self.registeredApps.cache(content, bytes: contentBytes, for: elementId, in: contextId, of: app.uniqueName)
                } catch {
                    Log.rateLimitedWarning("deferred:\(app.appId)", "\(app.appId): '\(elementId)' not cached: \(error)")
                }
            }
            guard let presentation = self.presentations[number] else { return }
            let answered = content.map { presentation.provide(elementId, content: $0, bytes: contentBytes) }
                ?? presentation.fail(elementId)
            if answered { self.scheduleSignal(presentation) }
        }
    }

    // MARK: Activation

    /// Accepts the choice, replies, then delivers it. Every protocol's
    /// activation comes through here, so every protocol has the same rule:
    /// only the presenter or the owner chooses (MenuBusServer+Identity.swift).
    package func activate(_ presentation: Presentation, caller: String, itemId: String, platformData: DBusValue) throws {
        try checkChooser(presentation, caller: caller, sendsSelectedText: false)
        try presentation.checkChoosable()
        try ServiceValidation.optionCount(platformData, field: "platformData")
        bringUpToDate(presentation)
        if let context = apps[presentation.owner]?.contexts[presentation.contextId],
           let reserved = try ReservedChoice(itemId, shownPreview: presentation.shownPreview, context: context) {
            return chooseReserved(reserved, in: presentation, platformData: platformData)
        }
        guard let element = presentation.element(itemId) else {
            throw BusError(.noSuchItem, "itemId: this menu has no item '\(itemId)'")
        }
        guard element.kind == .action else {
            throw BusError.invalidArgs("itemId: '\(itemId)' is a \(element.kind.rawValue), not an item that can be chosen")
        }
        guard !element.attributes.contains(.disabled), !element.attributes.contains(.hidden) else {
            throw BusError.invalidArgs("itemId: '\(itemId)' is disabled")
        }
        let owner = presentation.owner, contextId = presentation.contextId
        try checkChooser(presentation, caller: caller, sendsSelectedText: sendsSelectedText(element, owner: owner, contextId: contextId))
        let keepsOpen = element.attributes.contains(.keepsMenuPresented)
        // The choice closes the menu now, so a second click (an EventGroup of
        // several, a double click) is refused rather than delivered twice.
        if !keepsOpen { presentation.choose() }
        let answer = ProviderAnswer(menu: presentation.path, listeners: answerListeners(presentation, chooser: caller))
        // Deliver after the reply has been queued, so the presenter hears
        // "accepted" before anyone hears the choice.
        loop.addTimer(after: 0) { [weak self] in
            guard let self else { return }
            self.deliver(element, owner: owner, contextId: contextId, platformData: platformData, answer: answer)
            if !keepsOpen, let live = self.presentations[presentation.number] {
                self.closePresentation(live)
            }
        }
    }

    /// The preview or a button's primary action, chosen in a menu: it
    /// closes the menu, and the owner hears `ActionInvoked` after the reply.
    private func chooseReserved(_ choice: ReservedChoice, in presentation: Presentation, platformData: DBusValue) {
        presentation.choose()
        let owner = presentation.owner, contextId = presentation.contextId
        loop.addTimer(after: 0) { [weak self] in
            guard let self else { return }
            if let app = self.apps[owner] {
                self.callClient(app, MenuBusAPI.Client.actionInvoked, contextId, choice.invokedId, platformData)
            }
            if let live = self.presentations[presentation.number] { self.closePresentation(live) }
        }
    }

    /// `ActivatePrimaryAction`: a tap on a button context runs its primary
    /// action with no menu presented; whoever may present the context's
    /// menu may tap it. The owner hears `ActionInvoked` after the reply.
    package func activatePrimaryAction(caller: String, owner: String, contextId: String, platformData: DBusValue) throws {
        try ServiceValidation.optionCount(platformData, field: "platformData")
        let (ownerName, context) = try resolveMenuContext(owner, caller: caller, contextId: contextId)
        let item = try ReservedChoice.primaryItem(of: context, field: "contextId")
        loop.addTimer(after: 0) { [weak self] in
            guard let self, let app = self.apps[ownerName] else { return }
            self.callClient(app, MenuBusAPI.Client.actionInvoked, contextId, item.id, platformData)
        }
    }

    /// Whether choosing `element` hands the owner's selected text to a provider.
    func sendsSelectedText(_ element: MenuElement, owner: String, contextId: String) -> Bool {
        if ElementID.providerId(in: element.id) != nil { return true }
        guard let command = ElementID.command(in: element.id),
              let role = ProviderRole.allCases.first(where: { $0.command == command }),
              let context = apps[owner]?.contexts[contextId] else { return false }
        return EditMenu.provider(for: role, context: context.info, providers: providerInfos) != nil
    }

    /// App items go to `ActionInvoked`; provider items and provider roles
    /// to the provider's `Process`; other standard commands to `PerformCommand`.
    package func deliver(_ element: MenuElement, owner: String, contextId: String, platformData: DBusValue,
                 answer: ProviderAnswer? = nil) {
        guard let app = apps[owner], let context = app.contexts[contextId] else { return }
        if let providerId = ElementID.providerId(in: element.id) {
            if let provider = provider(id: providerId) {
                providerUsage.record(providerId)
                runProvider(provider, app: app, context: context, platformData: platformData, answer: answer)
            }
        } else if let command = ElementID.command(in: element.id) {
            if let role = ProviderRole.allCases.first(where: { $0.command == command }),
               let info = MatchingProviders(providerInfos, context: context.info, selection: context.selection).provider(for: role),
               let provider = provider(id: info.id) {
                providerUsage.record(info.id)
                runProvider(provider, app: app, context: context, platformData: platformData, answer: answer)
            } else {
                callClient(app, MenuBusAPI.Client.performCommand, contextId, command.rawValue,
                           .array("{sv}", MenuBusServer.passedPlatformData(platformData)))
            }
        } else {
            callClient(app, MenuBusAPI.Client.actionInvoked, contextId, element.id, platformData)
        }
    }

    /// Keys of an activation's `platformData` that reach `PerformCommand`
    /// and a provider's `Process` too, so the app or provider can raise its
    /// window under Wayland's focus rules (an xdg-activation token) or order
    /// events. Strings are bounded as every string MenuBus takes.
    static let passedPlatformKeys: Set<String> = ["activation-token", "timestamp"]

    /// The entries of `platformData` (already bounded by its entry count)
    /// under `passedPlatformKeys`, a string one only within `Limits.maxStringBytes`.
    static func passedPlatformData(_ platformData: DBusValue) -> [DBusValue] {
        guard case .array(_, let entries) = platformData else { return [] }
        return entries.filter { entry in
            guard case .dictEntry(.string(let key), let value) = entry, passedPlatformKeys.contains(key) else { return false }
            if case .variant(.string(let text)) = value { return text.utf8.count <= Limits.maxStringBytes }
            return true
        }
    }

    /// An asynchronous call to an app's client object; failures are logged, never waited on.
    func callClient<each In, each Out>(
        _ app: App, _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ arguments: repeat each In, completion: ((Result<(repeat each Out), BusError>) -> Void)? = nil
    ) {
        let member = method.name
        connection.call(method, destination: app.uniqueName, path: app.clientPath, repeat each arguments,
                        timeout: ServiceLimits.clientCallTimeout) { result in
            if case .failure(let error) = result {
                Log.rateLimitedWarning("client|\(app.uniqueName)|\(member)|\(error.name)",
                                       "\(app.appId) (\(app.uniqueName)) \(member) failed: \(error.name)")
            }
            completion?(result)
        }
    }

    /// Emits `Closed`; the menu object empties itself in the other
    /// protocols and goes (`exportsClosing`). Later calls answer `UnknownObject`.
    func closePresentation(_ presentation: Presentation) {
        guard presentations.remove(presentation.number) != nil else { return }
        presentation.close()
        connection.emit(MenuBusAPI.Menu.closed, at: presentation.path)
        exportsClosing(presentation)
    }
}
