import MenuBusProviders
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The providers menus offer: those connections registered
/// (`RegisteredProviders`), declared ones (key files, `ProviderCatalog`)
/// beside them, the user's policy over both, and calling one when it is
/// chosen (Providers+Process.swift), starting a declared one. A change of
/// what is offered is told to `changed`: every live menu may show it.
final class Providers {
    unowned let connection: Connection
    private unowned let loop: MessageLoop
    unowned let contexts: Contexts
    /// Seconds a declared provider has to start and answer its first `Process`.
    private let startTimeout: Double
    /// Providers connections registered.
    private let registered = RegisteredProviders()
    /// Declared providers and the user's policy.
    private let catalog = ProviderCatalog()
    private var catalogWatcher: DirectoryWatcher?
    private var catalogReloadScheduled = false
    /// `infos` as last derived, with the generations of the
    /// registrations and the catalog it was derived from.
    private var offeredCache: (registered: Int, catalog: Int, infos: [ProviderInfo])?
    /// How often this user chose each provider.
    private let usage: ProviderUsage
    /// What menus offer changed.
    var changed: () -> Void = {}

    init(connection: Connection, loop: MessageLoop, contexts: Contexts, startTimeout: Double, stateDirectory: String) {
        self.connection = connection
        self.loop = loop
        self.contexts = contexts
        self.startTimeout = startTimeout
        usage = ProviderUsage(stateDirectory: stateDirectory) { [loop] delay, work in
            _ = loop.addTimer(after: delay, work)
        }
    }

    /// Times each provider was chosen, by id, which orders the suggestions menus show.
    var usageCounts: [String: Int] { usage.counts }

    /// The user chose provider `providerId` from a menu.
    func recordChoice(_ providerId: String) {
        usage.record(providerId)
    }

    /// Reads the choices the daemon this one replaced wrote as it left.
    func reloadUsage() {
        usage.reload()
    }

    /// Adds the choices counted in another state directory (another way of
    /// starting menubusd kept them there) to these, once; at start.
    func adoptUsage(from other: String) {
        usage.adopt(from: other)
    }

    /// Writes the choices counted since the last write; when the daemon leaves.
    func flushUsage() {
        usage.flush()
    }

    /// Registered providers by id.
    var byId: [String: RegisteredProvider] { registered.byId }

    /// Declared providers in the catalog's order, then the other registered
    /// ones in registration order (`offeredProviders`), under the
    /// user's policy, as composition takes them: derived again only after
    /// a registration or the catalog changed (every menu composed asks).
    var infos: [ProviderInfo] {
        let registeredGeneration = registered.generation, catalogGeneration = catalog.generation
        if let cache = offeredCache, cache.registered == registeredGeneration, cache.catalog == catalogGeneration {
            return cache.infos
        }
        let infos = offeredProviders(registered: registered.inOrder.map(\.info))
        offeredCache = (registeredGeneration, catalogGeneration, infos)
        return infos
    }

    /// `infos` with the titles of declared providers in `locale`
    /// (their key files' `Title[xx]`), for a menu asked for in another
    /// language than the session's; nil or "" is the session's.
    func infos(locale: String?) -> [ProviderInfo] {
        let infos = infos
        guard let locale, !locale.isEmpty else { return infos }
        let titles = catalog.titles(in: locale)
        guard !titles.isEmpty else { return infos }
        return infos.map { info in
            guard let title = titles[info.id] else { return info }
            var translated = info
            translated.title = title
            return translated
        }
    }

    func register(caller: String, providerId: String, path: ObjectPath, properties: DBusValue) throws {
        let info = try Wire.decodeProvider(id: providerId, properties)
        try registered.register(providerId, info, owner: caller, path: path)
        changed()
    }

    func unregister(caller: String, providerId: String) throws {
        try registered.unregister(providerId, caller: caller)
        changed()
    }

    /// A provider's connection left: its items leave every menu, open ones too.
    func ownerLeft(_ uniqueName: String) {
        guard registered.removeAll(ownedBy: uniqueName) else { return }
        changed()
    }

    /// Reads the declarations and the policy and watches their folders.
    func startCatalog() {
        catalog.reload()
        guard let watcher = DirectoryWatcher(directories: catalog.watchedDirectories) else {
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
                if self.catalog.reload() { self.changed() }
            }
        }
    }

    /// What menus may offer: registered providers in registration order,
    /// then declared ones no running provider has replaced, with the user's
    /// policy applied (disabled ones gone, preferred ones first). A running
    /// provider that is also declared keeps its key file's shortcut.
    private func offeredProviders(registered: [ProviderInfo]) -> [ProviderInfo] {
        var running: [String: ProviderInfo] = [:]
        for info in registered where running[info.id] == nil { running[info.id] = info }
        // Declared ones in the catalog's order, a running one as it
        // registered, so an item never moves when its process starts or
        // leaves; then the others, in registration order.
        var offered: [ProviderInfo] = [], ids: Set<String> = []
        for declaration in catalog.declarations where ids.insert(declaration.info.id).inserted {
            guard var info = running[declaration.info.id] else {
                offered.append(declaration.info)
                continue
            }
            // The key file's Shortcut= is the user's or the packager's
            // word on the key: it stays when the process registers.
            if let shortcut = declaration.info.shortcut { info.shortcut = shortcut }
            offered.append(info)
        }
        offered += registered.filter { ids.insert($0.id).inserted }
        return catalog.policy.apply(to: offered)
    }

    /// The provider to call for `id`: the registered one, else the
    /// declaration, addressed to its well-known name so the bus starts it.
    /// nil when there is none or the user switched it off.
    func provider(id: String) -> RegisteredProvider? {
        guard !catalog.policy.disabled.contains(id) else { return nil }
        if let registered = registered[id] { return registered }
        guard let declaration = catalog.declarations.first(where: { $0.info.id == id }) else { return nil }
        return RegisteredProvider(info: declaration.info, owner: declaration.busName, path: declaration.objectPath,
                                  sequence: 0)
    }

    /// A declared provider may first have to be started: its first `Process`
    /// waits for activation too, up to `providerStartTimeout`.
    func processTimeout(for provider: RegisteredProvider) -> Double {
        provider.owner.hasPrefix(":") ? ServiceLimits.providerCallTimeout : startTimeout
    }

    /// `ListProviders`: (id, properties) for every registered and declared
    /// provider, enabled or not; properties as `RegisterProvider`'s plus
    /// `running` b, `declared` b, `enabled` b, `bus-name` s, `file` s.
    func listProviders() -> DBusValue {
        let running = registered.inOrder
        var rows: [DBusValue] = []
        func row(_ info: ProviderInfo, running: Bool, busName: String, file: String?) {
            var entries: [DBusValue] = []
            if case .array(_, let existing) = info.wireValue { entries = existing }
            entries.append(WireValue.entry("running", .boolean(running)))
            entries.append(WireValue.entry("declared", .boolean(file != nil)))
            entries.append(WireValue.entry("enabled", .boolean(!catalog.policy.disabled.contains(info.id))))
            entries.append(WireValue.entry("bus-name", .string(busName)))
            if let file { entries.append(WireValue.entry("file", .string(file))) }
            rows.append(.structure([.string(info.id), .array("{sv}", entries)]))
        }
        for provider in running {
            let declaration = catalog.declarations.first { $0.info.id == provider.info.id }
            var info = provider.info
            if let shortcut = declaration?.info.shortcut { info.shortcut = shortcut } // as menus show it
            row(info, running: true, busName: provider.owner, file: declaration?.file)
        }
        for declaration in catalog.declarations where registered[declaration.info.id] == nil {
            row(declaration.info, running: false, busName: declaration.busName, file: declaration.file)
        }
        return .array("(sa{sv})", rows)
    }

    func declareList(in manager: inout Interface) {
        manager.method(MenuBusAPI.Manager.listProviders) { [unowned self] _ in
            self.listProviders()
        }
    }
}
