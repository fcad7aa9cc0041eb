import MenuBusProviders
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// Declared providers (key files) beside registered ones, the user's
/// policy over both, and starting a declared provider when it is chosen.
extension MenuBusServer {
    /// Reads the declarations and the policy and watches their folders.
    func startProviderCatalog() {
        providerCatalog.reload()
        guard let watcher = DirectoryWatcher(directories: providerCatalog.watchedDirectories) else {
            Log.warning("inotify is unavailable; provider files are read only at start")
            return
        }
        catalogWatcher = watcher
        loop.watch(fd: watcher.fd) { [unowned self] in
            guard watcher.drain(), !self.catalogReloadScheduled else { return }
            // A burst of events (an editor's save, a package's files) is one reload.
            self.catalogReloadScheduled = true
            self.loop.addTimer(after: 0.05) { [weak self] in
                guard let self else { return }
                self.catalogReloadScheduled = false
                watcher.arm()
                if self.providerCatalog.reload() { self.providersChanged() }
            }
        }
    }

    /// What menus may offer: registered providers in registration order,
    /// then declared ones no running provider has replaced, with the user's
    /// policy applied (disabled ones gone, preferred ones first).
    func offeredProviders(registered: [ProviderInfo]) -> [ProviderInfo] {
        var running: [String: ProviderInfo] = [:]
        for info in registered where running[info.id] == nil { running[info.id] = info }
        // Declared ones in the catalog's order, a running one as it
        // registered, so an item never moves when its process starts or
        // leaves; then the others, in registration order.
        var offered: [ProviderInfo] = [], ids: Set<String> = []
        for declaration in providerCatalog.declarations where ids.insert(declaration.info.id).inserted {
            offered.append(running[declaration.info.id] ?? declaration.info)
        }
        offered += registered.filter { ids.insert($0.id).inserted }
        return providerCatalog.policy.apply(to: offered)
    }

    /// The provider to call for `id`: the registered one, else the
    /// declaration, addressed to its well-known name so the bus starts it.
    /// nil when there is none or the user switched it off.
    package func provider(id: String) -> RegisteredProvider? {
        guard !providerCatalog.policy.disabled.contains(id) else { return nil }
        if let registered = providers[id] { return registered }
        guard let declaration = providerCatalog.declarations.first(where: { $0.info.id == id }) else { return nil }
        return RegisteredProvider(info: declaration.info, owner: declaration.busName, path: declaration.objectPath,
                                  sequence: 0)
    }

    /// A declared provider may first have to be started: its first `Process`
    /// waits for activation too, up to `providerStartTimeout`.
    func processTimeout(for provider: RegisteredProvider) -> Double {
        provider.owner.hasPrefix(":") ? ServiceLimits.providerCallTimeout : configuration.providerStartTimeout
    }

    /// `ListProviders`: (id, properties) for every registered and declared
    /// provider, enabled or not; properties as `RegisterProvider`'s plus
    /// `running` b, `declared` b, `enabled` b, `bus-name` s, `file` s.
    package func listProviders() -> DBusValue {
        let registered = registeredProviders.inOrder
        var rows: [DBusValue] = []
        func row(_ info: ProviderInfo, running: Bool, busName: String, file: String?) {
            var entries: [DBusValue] = []
            if case .array(_, let existing) = info.wireValue { entries = existing }
            entries.append(WireValue.entry("running", .boolean(running)))
            entries.append(WireValue.entry("declared", .boolean(file != nil)))
            entries.append(WireValue.entry("enabled", .boolean(!providerCatalog.policy.disabled.contains(info.id))))
            entries.append(WireValue.entry("bus-name", .string(busName)))
            if let file { entries.append(WireValue.entry("file", .string(file))) }
            rows.append(.structure([.string(info.id), .array("{sv}", entries)]))
        }
        for provider in registered {
            let file = providerCatalog.declarations.first { $0.info.id == provider.info.id }?.file
            row(provider.info, running: true, busName: provider.owner, file: file)
        }
        for declaration in providerCatalog.declarations where providers[declaration.info.id] == nil {
            row(declaration.info, running: false, busName: declaration.busName, file: declaration.file)
        }
        return .array("(sa{sv})", rows)
    }

    func declareProviderCatalog(in manager: inout Interface) {
        manager.method(MenuBusAPI.Manager.listProviders) { [unowned self] _ in
            self.listProviders()
        }
    }
}
