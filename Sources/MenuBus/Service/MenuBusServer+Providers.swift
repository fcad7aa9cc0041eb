extension MenuBusServer {
    static let providerInterface = "org.menubus.MenuBus1.Provider"

    /// Providers in registration order, then declared ones, under the
    /// user's policy, as composition takes them.
    var providerInfos: [ProviderInfo] {
        offeredProviders(registered: providers.values.sorted { $0.sequence < $1.sequence }.map(\.info))
    }

    func registerProvider(caller: String, providerId: String, path: ObjectPath, properties: DBusValue) throws {
        let info = try Wire.decodeProvider(id: providerId, properties)
        if let existing = providers[providerId], existing.owner != caller {
            throw BusError(.accessDenied, "providerId: '\(providerId)' is registered by another connection")
        }
        if providers[providerId] == nil, providers.count >= ServiceLimits.maxProviders {
            throw BusError(.limitExceeded, "providerId: at most \(ServiceLimits.maxProviders) providers may be registered at once")
        }
        let held = providers.values.filter { $0.owner == caller && $0.info.id != providerId }.count
        guard held < ServiceLimits.maxProvidersPerConnection else {
            throw BusError(.limitExceeded, "providerId: a connection may register at most \(ServiceLimits.maxProvidersPerConnection) providers")
        }
        registrationCounter += 1
        providers[providerId] = RegisteredProvider(info: info, owner: caller, path: path,
                                                   sequence: providers[providerId]?.sequence ?? registrationCounter)
        providersChanged()
    }

    func unregisterProvider(caller: String, providerId: String) throws {
        guard let provider = providers[providerId] else {
            throw BusError(.noSuchItem, "providerId: no provider '\(providerId)' is registered")
        }
        guard provider.owner == caller else {
            throw BusError(.accessDenied, "providerId: '\(providerId)' is registered by another connection")
        }
        providers[providerId] = nil
        providersChanged()
    }

    /// A provider's connection left: its items leave every menu, open ones too.
    func providerOwnerLeft(_ uniqueName: String) {
        let gone = providers.values.filter { $0.owner == uniqueName }.map(\.info.id)
        guard !gone.isEmpty else { return }
        for id in gone { providers[id] = nil }
        providersChanged()
    }

    /// Text from the selection (or the owner's `GetSelectedText`) to the
    /// provider's `Process`; replacement text back to the owner.
    func runProvider(_ provider: RegisteredProvider, app: App, context: PublishedContext,
                     platformData: DBusValue = .array("{sv}", [])) {
        let contextId = context.id
        let uriList = context.selection.uriList(for: provider.info)
        let contentType = uriList == nil ? "text/plain" : Selection.uriListType
        let process: (String) -> Void = { [weak self] text in
            guard let self else { return }
            var contextValue = Wire.encode(context.info)
            if case .array(let signature, var entries) = contextValue {
                entries.append(.dictEntry(.string("app-id"), .variant(.string(app.appId))))
                entries.append(.dictEntry(.string("context-id"), .variant(.string(contextId))))
                entries += MenuBusServer.passedPlatformData(platformData)
                entries.append(.dictEntry(.string("content-type"), .variant(.string(contentType))))
                contextValue = .array(signature, entries)
            }
            self.connection.call(destination: provider.owner, path: provider.path, interface: MenuBusServer.providerInterface,
                                 member: "Process", arguments: [.string(provider.info.id), .string(text), contextValue],
                                 timeout: self.processTimeout(for: provider)) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let values):
                    guard values.count == 2, case .string(let replacement) = values[0] else {
                        Log.warning("provider \(provider.info.id) answered Process with the wrong type")
                        return
                    }
                    guard !replacement.isEmpty, provider.info.returnsText,
                          let live = self.apps[app.uniqueName]?.contexts[contextId], live.info.editable else { return }
                    self.callClient(app, "PerformCommand", [
                        .string(contextId), .string(StandardCommand.replaceSelection.rawValue),
                        .array("{sv}", [.dictEntry(.string("text"), .variant(.string(replacement))),
                                        .dictEntry(.string("provider"), .variant(.string(provider.info.id))),
                                        .dictEntry(.string("undo-name"), .variant(.string(provider.info.title)))]),
                    ])
                case .failure(let error):
                    Log.warning("provider \(provider.info.id) Process failed: \(error.name)")
                }
            }
        }
        if let text = uriList ?? context.selection.text {
            process(text)
            return
        }
        callClient(app, "GetSelectedText", [.string(contextId)]) { result in
            guard case .success(let values) = result, values.count == 1, case .string(let text) = values[0] else { return }
            guard text.utf8.count <= Limits.maxSelectionTextBytes else {
                Log.warning("\(app.appId) GetSelectedText returned more than \(Limits.maxSelectionTextBytes) bytes; not sent to \(provider.info.id)")
                return
            }
            process(text)
        }
    }
}
