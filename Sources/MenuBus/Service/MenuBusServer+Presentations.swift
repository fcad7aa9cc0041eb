extension MenuBusServer {
    static let menuInterface = "org.menubus.MenuBus1.Menu"
    static let clientInterface = "org.menubus.MenuBus1.Client"
    /// Signals of one menu are at most this often (ns); the first of a
    /// burst goes at once, the last state always goes.
    static let signalInterval: UInt64 = 16_000_000

    func present(caller: String, owner: String, contextId: String, kind: String, options: DBusValue) throws -> ObjectPath {
        guard let menuKind = MenuKind(rawValue: kind) else {
            throw BusError.invalidArgs("kind: '\(kind)' is not 'context' or 'edit'")
        }
        try ServiceValidation.optionCount(options, field: "options")
        let textDirection = try TextDirection.from(options: options)
        let (ownerName, _) = try resolveOwner(owner, caller: caller, contextId: contextId)
        let held = presentations.values.filter { $0.presenter == caller }.count
        guard held < ServiceLimits.maxPresentationsPerPresenter else {
            throw BusError(.limitExceeded, "a presenter may hold at most \(ServiceLimits.maxPresentationsPerPresenter) live menus; dismiss some first")
        }
        nextPresentationNumber += 1
        let presentation = Presentation(number: nextPresentationNumber, kind: menuKind, owner: ownerName,
                                        contextId: contextId, presenter: caller)
        if let textDirection { presentation.textDirection = textDirection }
        presentations[presentation.number] = presentation
        connection.export(presentation.path, [menuInterface(presentation.number)] + exportInterfaces(presentation.number))
        // Compose now, so deferred elements are asked for before the reply goes.
        refresh(presentation)
        presentation.lastSignalRevision = presentation.revision
        return presentation.path
    }

    /// The `org.menubus.MenuBus1.Menu` interface of presentation `number`.
    func menuInterface(_ number: UInt64) -> Interface {
        var menu = Interface(MenuBusServer.menuInterface)
        menu.method("GetLayout", out: [arg("revision", UInt32.self), arg("items", signature: "a(ssa{sv})")]) { [unowned self] call in
            let presentation = try self.livePresentation(number)
            self.bringUpToDate(presentation)
            call.reply(with: try presentation.layoutReply())
            return []
        }
        menu.method("Activate", in: [arg("itemId", String.self), arg("platformData", [String: DBusValue].self)]) {
            [unowned self] call in
            try self.activate(self.livePresentation(number), caller: call.sender,
                              itemId: call.argument(0), platformData: call.arguments[1])
            return []
        }
        menu.method("Dismiss") { [unowned self] call in
            self.closePresentation(try self.livePresentation(number))
            return []
        }
        menu.signal("LayoutChanged", [arg("revision", UInt32.self), arg("items", signature: "a(ssa{sv})")])
        menu.signal("Closed")
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
        if presentation.isStale, refresh(presentation) { scheduleSignal(presentation) }
    }

    /// Composes the presentation from the current context and providers,
    /// resolves deferred elements and asks for the missing ones. Returns
    /// true when the layout changed.
    @discardableResult
    func refresh(_ presentation: Presentation) -> Bool {
        guard let app = apps[presentation.owner], let context = app.contexts[presentation.contextId] else { return false }
        let composed = compose(presentation.kind, context, appId: app.appId)
        var available = presentation.provided
        for element in composed where element.kind == .deferred && element.cached && available[element.id] == nil {
            if let cached = context.deferredCache[element.id] { available[element.id] = cached }
        }
        let resolution = DeferredElements.resolve(composed, provided: available, failed: presentation.failed)
        presentation.waiting = Set(resolution.waiting.lazy.map(\.id))
        for element in resolution.waiting where !presentation.asked.contains(element.id) {
            askForDeferred(element, in: presentation)
        }
        return presentation.update(resolution.elements, title: context.info.title)
    }

    /// Marks every live menu of the context stale and schedules its signal.
    func contextChanged(owner: String, contextId: String) {
        for presentation in presentations.values where presentation.owner == owner && presentation.contextId == contextId {
            presentation.isStale = true
            scheduleSignal(presentation)
        }
    }

    /// Every live menu may show providers: all of them recompose.
    func providersChanged() {
        for presentation in presentations.values {
            presentation.isStale = true
            scheduleSignal(presentation)
        }
    }

    /// Coalesces signals: flush at once when the last one is older than
    /// `signalInterval`, else once at the end of the interval.
    func scheduleSignal(_ presentation: Presentation) {
        presentation.signalPending = true
        guard !presentation.flushScheduled else { return }
        let elapsed = MessageLoop.now() &- presentation.lastSignal
        if elapsed >= MenuBusServer.signalInterval {
            flushSignal(presentation)
            return
        }
        presentation.flushScheduled = true
        let wait = Double(MenuBusServer.signalInterval - elapsed) / 1_000_000_000
        loop.addTimer(after: wait) { [weak self, weak presentation] in
            guard let self, let presentation, self.presentations[presentation.number] === presentation else { return }
            presentation.flushScheduled = false
            self.flushSignal(presentation)
        }
    }

    private func flushSignal(_ presentation: Presentation) {
        guard presentation.signalPending else { return }
        presentation.signalPending = false
        if presentation.isStale { refresh(presentation) }
        guard presentation.lastSignalRevision != presentation.revision else { return }
        presentation.lastSignal = MessageLoop.now()
        presentation.lastSignalRevision = presentation.revision
        connection.emit(presentation.path, MenuBusServer.menuInterface, "LayoutChanged",
                        [.uint32(presentation.revision), Wire.encode(presentation.elements)])
        exportsLayoutChanged(presentation)
    }

    // MARK: Deferred elements

    /// Asks the owner for a deferred element, without waiting; the answer
    /// (or its absence) recomposes the menu.
    private func askForDeferred(_ element: MenuElement, in presentation: Presentation) {
        presentation.asked.insert(element.id)
        guard let app = apps[presentation.owner] else { return }
        let number = presentation.number, contextId = presentation.contextId, elementId = element.id
        let cached = element.cached
        deferredCallsStarted += 1
        connection.call(destination: app.uniqueName, path: app.clientPath, interface: MenuBusServer.clientInterface,
                        member: "ProvideElements", arguments: [.string(contextId), .string(elementId)],
                        timeout: configuration.deferredTimeout) { [weak self] result in
            guard let self else { return }
            var content: [MenuElement]?
            switch result {
            case .success(let values):
                do {
                    guard values.count == 1 else { throw BusError.invalidArgs("ProvideElements returned \(values.count) values") }
                    let elements = try Wire.decodeElements(values[0], field: "elements")
                    // Content is filled once: a deferred element inside it would never be asked for.
                    guard !elements.contains(where: { $0.kind == .deferred }) else {
                        throw BusError.invalidArgs("elements: provided content may not hold deferred elements")
                    }
                    content = elements
                } catch {
                    Log.warning("\(app.appId) provided bad elements for '\(elementId)': \(error)")
                }
            case .failure(let error):
                Log.warning("\(app.appId) did not provide '\(elementId)': \(error.name)")
            }
            // Cache only while the context still has that cached deferred
            // element: an answer that outlived it must not come back later.
            if let content, cached, let live = self.apps[app.uniqueName]?.contexts[contextId],
               live.items.contains(where: { $0.id == elementId && $0.kind == .deferred && $0.cached }) {
                self.apps[app.uniqueName]?.contexts[contextId]?.deferredCache[elementId] = content
            }
            guard let presentation = self.presentations[number] else { return }
            if let content {
                presentation.provided[elementId] = content
            } else {
                presentation.failed.insert(elementId)
            }
            presentation.isStale = true
            self.scheduleSignal(presentation)
        }
    }

    // MARK: Activation

    /// Accepts the choice, replies, then delivers it. Every protocol's
    /// activation comes through here. Any connection may choose, as with
    /// dbusmenu's `Event`: the session bus is one user's, and a shell or a
    /// debugging tool must be able to act on a menu it did not present.
    func activate(_ presentation: Presentation, caller: String, itemId: String, platformData: DBusValue) throws {
        guard !presentation.isChosen else {
            throw BusError(name: BusError.Standard.unknownObject, message: "the menu was closed by an earlier choice")
        }
        try ServiceValidation.optionCount(platformData, field: "platformData")
        bringUpToDate(presentation)
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
        let keepsOpen = element.attributes.contains(.keepsMenuPresented)
        // The choice closes the menu now, so a second click (an EventGroup of
        // several, a double click) is refused rather than delivered twice.
        if !keepsOpen { presentation.isChosen = true }
        // Deliver after the reply has been queued, so the presenter hears
        // "accepted" before anyone hears the choice.
        loop.addTimer(after: 0) { [weak self] in
            guard let self else { return }
            self.deliver(element, owner: owner, contextId: contextId, platformData: platformData)
            if !keepsOpen, let live = self.presentations[presentation.number] {
                self.closePresentation(live)
            }
        }
    }

    /// App items go to `ActionInvoked`; provider items and provider roles
    /// to the provider's `Process`; other standard commands to `PerformCommand`.
    func deliver(_ element: MenuElement, owner: String, contextId: String, platformData: DBusValue) {
        guard let app = apps[owner], let context = app.contexts[contextId] else { return }
        if let providerId = ElementID.providerId(in: element.id) {
            if let provider = providers[providerId] { runProvider(provider, app: app, context: context) }
        } else if let command = ElementID.command(in: element.id) {
            if let role = ProviderRole.allCases.first(where: { $0.command == command }),
               let info = EditMenu.provider(for: role, context: context.info, providers: providerInfos),
               let provider = providers[info.id] {
                runProvider(provider, app: app, context: context)
            } else {
                callClient(app, "PerformCommand", [.string(contextId), .string(command.rawValue), .array("{sv}", [])])
            }
        } else {
            callClient(app, "ActionInvoked", [.string(contextId), .string(element.id), platformData])
        }
    }

    /// An asynchronous call to an app's client object; failures are logged, never waited on.
    func callClient(_ app: App, _ member: String, _ arguments: [DBusValue],
                    completion: ((Result<[DBusValue], BusError>) -> Void)? = nil) {
        connection.call(destination: app.uniqueName, path: app.clientPath, interface: MenuBusServer.clientInterface,
                        member: member, arguments: arguments, timeout: ServiceLimits.clientCallTimeout) { result in
            if case .failure(let error) = result {
                Log.warning("\(app.appId) (\(app.uniqueName)) \(member) failed: \(error.name)")
            }
            completion?(result)
        }
    }

    /// Emits `Closed`; the menu object empties itself in the other
    /// protocols and goes (`exportsClosing`). Later calls answer `UnknownObject`.
    func closePresentation(_ presentation: Presentation) {
        guard presentations.removeValue(forKey: presentation.number) != nil else { return }
        connection.emit(presentation.path, MenuBusServer.menuInterface, "Closed", [])
        exportsClosing(presentation)
    }
}
