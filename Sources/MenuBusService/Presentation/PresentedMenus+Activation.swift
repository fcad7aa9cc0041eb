import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

extension PresentedMenus {
    // MARK: Deferred elements

    /// Asks the owner for a deferred element, without waiting; the answer
    /// (or its absence) recomposes the menu.
    func askForDeferred(_ element: MenuElement, in presentation: Presentation) {
        guard let app = contexts[presentation.owner] else { return }
        let number = presentation.number, contextId = presentation.contextId, elementId = element.id
        let cached = element.cached
        connection.call(MenuBusAPI.Client.provideElements, destination: app.uniqueName, path: app.clientPath,
                        contextId, elementId, timeout: self.deferredTimeout) { [weak self] result in
            guard let self else { return }
            var content: [MenuElement]?
            var contentBytes = 0
            switch result {
            case .success(let provided):
                do {
                    // Counted before it is decoded: the presenter holds it in
                    // this menu, the owner in its cache.
                    contentBytes = Budgets.heldBytes(wire: Ledger.cost(provided), elements: Budgets.elementCount(provided))
                    if let presentation = self.presentations[number] {
                        try self.ledger.checkBudget(adding: contentBytes * Budgets.presentationFactor, for: presentation.presenter,
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
            if let content, cached, let live = self.contexts.context(contextId, of: app.uniqueName),
               live.items.contains(where: { $0.id == elementId && $0.kind == .deferred && $0.cached }) {
                do {
                    try self.ledger.checkContextGrowth(caller: app.uniqueName, contextId: contextId, adding: contentBytes,
                                                releasing: live.cacheBytes[elementId] ?? 0, field: "elements")
                    self.contexts.cache(content, bytes: contentBytes, for: elementId, in: contextId, of: app.uniqueName)
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
    /// only the presenter or the owner chooses (Trust.swift).
    package func activate(_ presentation: Presentation, caller: String, itemId: String, platformData: DBusValue) throws {
        try trust.checkChooser(presentation, caller: caller, sendsSelectedText: false)
        try presentation.checkChoosable()
        try ServiceValidation.optionCount(platformData, field: "platformData")
        bringUpToDate(presentation)
        if let context = contexts.context(presentation.contextId, of: presentation.owner),
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
        try trust.checkChooser(presentation, caller: caller, sendsSelectedText: sendsSelectedText(element, owner: owner, contextId: contextId))
        let keepsOpen = element.attributes.contains(.keepsMenuPresented)
        // The choice closes the menu now, so a second click (an EventGroup of
        // several, a double click) is refused rather than delivered twice.
        if !keepsOpen { presentation.choose() }
        let answer = ProviderAnswer(menu: presentation.path, listeners: answerListeners(presentation, chooser: caller))
        // Deliver after the reply has been queued, so the presenter hears
        // "accepted" before anyone hears the choice.
        loop.addTimer(after: 0) { [weak self] in
            guard let self else { return }
            self.deliver(element, owner: owner, contextId: contextId, platformData: platformData, answer: answer,
                         chooser: caller)
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
            if let app = self.contexts[owner] {
                app.callClient(self.connection, MenuBusAPI.Client.actionInvoked, contextId, choice.invokedId, platformData)
            }
            if let live = self.presentations[presentation.number] { self.closePresentation(live) }
        }
    }

    /// `ActivatePrimaryAction`: a tap on a button context runs its primary
    /// action with no menu presented; whoever may present the context's
    /// menu may tap it. The owner hears `ActionInvoked` after the reply.
    func activatePrimaryAction(caller: String, owner: String, contextId: String, platformData: DBusValue) throws {
        try ServiceValidation.optionCount(platformData, field: "platformData")
        let (ownerName, context) = try contexts.resolveMenuContext(owner, caller: caller, contextId: contextId)
        let item = try ReservedChoice.primaryItem(of: context, field: "contextId")
        loop.addTimer(after: 0) { [weak self] in
            guard let self, let app = self.contexts[ownerName] else { return }
            app.callClient(self.connection, MenuBusAPI.Client.actionInvoked, contextId, item.id, platformData)
        }
    }

    /// Whether choosing `element` hands the owner's selected text to a provider.
    func sendsSelectedText(_ element: MenuElement, owner: String, contextId: String) -> Bool {
        if ElementID.providerId(in: element.id) != nil { return true }
        guard let command = ElementID.command(in: element.id),
              let role = ProviderRole.allCases.first(where: { $0.command == command }),
              let context = contexts.context(contextId, of: owner) else { return false }
        return EditMenu.provider(for: role, context: context.info, providers: providers.infos) != nil
    }

    /// App items go to `ActionInvoked`; provider items and provider roles
    /// to the provider's `Process`; other standard commands to `PerformCommand`.
    /// A provider choice counts toward the suggestions every app shows only
    /// when `chooser` is outside any sandbox and is not the provider itself,
    /// so no sandboxed app can reorder the menus of others.
    package func deliver(_ element: MenuElement, owner: String, contextId: String, platformData: DBusValue,
                 answer: ProviderAnswer?, chooser: String) {
        func record(_ provider: RegisteredProvider) {
            guard chooser != provider.owner, trust.identity(of: chooser).isHost else { return }
            providers.recordChoice(provider.info.id)
        }
        guard let app = contexts[owner], let context = app.contexts[contextId] else { return }
        if let providerId = ElementID.providerId(in: element.id) {
            if let provider = providers.provider(id: providerId) {
                record(provider)
                providers.runProvider(provider, app: app, context: context, platformData: platformData, answer: answer)
            }
        } else if let command = ElementID.command(in: element.id) {
            if let role = ProviderRole.allCases.first(where: { $0.command == command }),
               let info = MatchingProviders(providers.infos, context: context.info, selection: context.selection).provider(for: role),
               let provider = providers.provider(id: info.id) {
                record(provider)
                providers.runProvider(provider, app: app, context: context, platformData: platformData, answer: answer)
            } else {
                app.callClient(connection, MenuBusAPI.Client.performCommand, contextId, command.rawValue,
                               .array("{sv}", PlatformData.passed(platformData)))
            }
        } else {
            app.callClient(connection, MenuBusAPI.Client.actionInvoked, contextId, element.id, platformData)
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

    /// Who hears a provider's answer that does not go into the app: the
    /// presenter of the menu it was chosen from and the chooser (the
    /// presenter or the owner), each only if it may see the selection.
    func answerListeners(_ presentation: Presentation, chooser: String) -> [String] {
        var names = [presentation.presenter]
        if chooser != presentation.presenter { names.append(chooser) }
        return names.filter { trust.maySeeSelection($0, owner: presentation.owner) }
    }
}
