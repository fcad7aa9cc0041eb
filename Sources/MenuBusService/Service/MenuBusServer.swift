#if canImport(Glibc)
import Glibc
#endif
import MenuBusProviders
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The daemon: one connection, one loop, its lifecycle, and the components
/// that own the state (contexts, providers, undo, presented menus), wired
/// together (MenuBusServer+Wiring.swift).
///
/// ```swift
/// let server = try MenuBusServer(configuration: .init(address: nil))
/// server.watchSignals([SIGTERM, SIGINT])
/// try server.claimName()
/// let reason = server.run()
/// server.shutdown()
/// ```
package final class MenuBusServer {
    /// Settings from the command line.
    package struct Configuration: Sendable {
        /// A D-Bus address; nil means the session bus.
        package var address: String?
        /// Seconds to wait for an app's `ProvideElements` before the element disappears.
        package var deferredTimeout: Double
        /// Where undo journals live: `$STATE_DIRECTORY`, else `$XDG_STATE_HOME/menubus`, else `~/.local/state/menubus`.
        package var stateDirectory: String
        /// Where another way of starting keeps its history (the systemd 252
        /// unit's `$XDG_CONFIG_HOME/menubus`, or `$XDG_STATE_HOME/menubus`):
        /// what they hold is moved into `stateDirectory` at start. Empty when
        /// the state directory was given (`--state-dir`).
        package var otherStateDirectories: [String]
        /// Undo documents untouched for this many days are removed at start; nil keeps them.
        package var undoRetentionDays: Int?
        /// Memory budgets per connection and daemon-wide.
        package var budgets = Budgets()
        /// Seconds with no app, presentation or provider after which `run`
        /// returns `.idle`; nil never (the default when started by hand).
        package var idleTimeout: Double?
        /// Seconds a declared provider has to start and answer its first `Process`.
        package var providerStartTimeout: Double = 10
        /// Undo bytes kept in memory, every document together; past it the
        /// least recently used documents are dropped and read again on use.
        package var undoMemoryBytes = 256 << 20
        /// Undo bytes on disk, every journal together; past it a new step is refused.
        package var undoDiskBytes = 2 << 30
        /// Undo bytes one app id keeps in memory; past it its least recently used documents are dropped.
        package var undoAppMemoryBytes = 32 << 20
        /// Undo bytes one app id keeps on disk; past it its new steps are refused.
        package var undoAppDiskBytes = 256 << 20

        package init(address: String? = nil, deferredTimeout: Double = 3, stateDirectory: String? = nil,
                    undoRetentionDays: Int? = 90) {
            self.address = address
            self.deferredTimeout = deferredTimeout
            let places = stateDirectory == nil ? Configuration.defaultStateDirectories() : nil
            self.stateDirectory = stateDirectory ?? places?.inUse ?? ""
            otherStateDirectories = places?.others ?? []
            self.undoRetentionDays = undoRetentionDays
        }

        /// `$STATE_DIRECTORY` (the first entry), else the history the systemd
        /// unit keeps where systemd before 254 puts it (`$XDG_CONFIG_HOME/menubus`,
        /// when it holds an `undo` folder), else `$XDG_STATE_HOME/menubus`,
        /// else `$HOME/.local/state/menubus`; and the others of those places.
        static func defaultStateDirectories() -> (inUse: String, others: [String]) {
            defaultStateDirectories(environment: { getenv($0).map { String(cString: $0) } },
                                    hasUndo: { Files.isDirectory($0 + "/undo") })
        }

        /// The same rule on any environment. systemd sets `STATE_DIRECTORY`
        /// for `StateDirectory=`, the one place a sandboxed unit may write
        /// (under `$XDG_CONFIG_HOME` on systemd 252, `$XDG_STATE_HOME` later);
        /// with several directories it is colon-separated.
        /// A menubusd started by hand or by D-Bus activation without systemd
        /// then keeps the one history the unit keeps, not a second one.
        static func defaultStateDirectory(environment: (String) -> String?,
                                          hasUndo: (String) -> Bool = { _ in false }) -> String {
            defaultStateDirectories(environment: environment, hasUndo: hasUndo).inUse
        }

        /// The same, with the places where the other ways of starting keep
        /// a history: the state home's and the systemd 252 unit's, but the
        /// one in use.
        static func defaultStateDirectories(environment: (String) -> String?,
                                            hasUndo: (String) -> Bool = { _ in false }) -> (inUse: String, others: [String]) {
            let home = environment("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let config = (environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config")
                + "/menubus"
            let state = (environment("XDG_STATE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state")
                + "/menubus"
            var inUse = state
            if let given = environment("STATE_DIRECTORY"),
               let first = given.split(separator: ":").first, first.hasPrefix("/") {
                inUse = first.count > 1 && first.hasSuffix("/") ? String(first.dropLast()) : String(first)
            } else if !hasUndo(state), hasUndo(config) {
                inUse = config
            }
            return (inUse, [state, config].filter { $0 != inUse })
        }
    }

    /// Why `run` returned.
    package enum StopReason: Equatable, Sendable {
        case signal(Int32)
        case disconnected
        /// Another menubusd took the name (`--replace`); journals are synced.
        case replaced
        /// `--idle-timeout` passed with no app, presentation or provider.
        case idle
    }

    /// Raised by `claimName` when another connection owns the name.
    package struct NameTaken: Error, CustomStringConvertible {
        package let name: String
        package var description: String { "the name \(name) is already owned on this bus" }
    }

    package let configuration: Configuration
    package let loop = MessageLoop()
    package let connection: Connection
    /// The components, each owning its state: `trust` (who each connection
    /// is, what it may reach), `contexts` (registered apps and their
    /// contexts), `ledger` (what each connection makes menubusd hold),
    /// `providers` (registered and declared), `undo` (the undo documents),
    /// `composer` (menus by the rules, the one-off reads) and `menus` (the
    /// presented menus and their exports in the desktop's menu protocols).
    let trust: Trust, contexts: Contexts, ledger: Ledger, providers: Providers
    let undo: Undo, composer: Composer, menus: PresentedMenus

    /// When the server was made (monotonic nanoseconds), for `Stats`' `uptime-seconds`.
    let startedAt = MessageLoop.now()

    package var stats: Stats {
        Stats(startedAt: startedAt, apps: UInt32(contexts.byName.count),
              contexts: UInt32(contexts.contextCount),
              documents: UInt32(clamping: undo.documentCount),
              presentations: UInt32(menus.presentations.count),
              providers: UInt32(providers.byId.count), heldBytes: UInt64(ledger.heldBytesTotal),
              undoMemoryBytes: UInt64(undo.memoryBytes), undoDiskBytes: UInt64(undo.diskBytes),
              undoHistory: undo.adoptedHistory)
    }
    var ownsName = false
    var stopReason: StopReason?
    private var signalWatcher: SignalWatcher?
    /// Since when nothing needs this daemon (MenuBusServer+Lifecycle.swift).
    var idleSince: UInt64?

    /// Connects to the bus; throws `BusError` when it cannot.
    package init(configuration: Configuration) throws {
        self.configuration = configuration
        #if DEBUG
        // Tests run debug builds; a release menubusd never fails its journal on purpose.
        if let faults = getenv("MENUBUS_UNDO_FAULTS").map({ String(cString: $0) }), !faults.isEmpty {
            UndoFiles.inject = UndoFiles.faults(from: faults)
            Log.warning("undo journal faults injected: \(faults) (MENUBUS_UNDO_FAULTS, for tests)")
        }
        #endif
        connection = try Connection(address: configuration.address, loop: loop)
        let apps = RegisteredApps(), presentations = Presentations()
        trust = Trust(connection: connection)
        ledger = Ledger(budgets: configuration.budgets, loop: loop, apps: apps, presentations: presentations)
        contexts = Contexts(apps: apps, trust: trust, ledger: ledger)
        providers = Providers(connection: connection, loop: loop, contexts: contexts,
                              startTimeout: configuration.providerStartTimeout,
                              stateDirectory: configuration.stateDirectory)
        undo = Undo(connection: connection, loop: loop, contexts: contexts, ledger: ledger, configuration: configuration)
        composer = Composer(contexts: contexts, providers: providers, undo: undo)
        menus = PresentedMenus(connection: connection, loop: loop, presentations: presentations, contexts: contexts,
                               providers: providers, trust: trust, ledger: ledger, composer: composer,
                               deferredTimeout: configuration.deferredTimeout)
        wire()
        connection.maxCallBytes = configuration.budgets.maxCallBytes
        connection.largeCallHandled = { [weak self] bytes in self?.ledger.releasedMemory(bytes) }
        connection.maxCallValues = ServiceLimits.maxCallValues
        connection.limitIncomingQueue(bytes: 2 * configuration.budgets.maxCallBytes)
        connection.disconnected = { [unowned self] in
            self.stopReason = .disconnected
            self.loop.stop()
        }
        connection.export(MenuBusNames.managerPath, [managerInterface()])
        connection.nameLost = { [unowned self] name, _ in
            if name.hasPrefix(":") { self.peerLeft(name) }
        }
        connection.trackPeers()
        connection.onNameLost { [unowned self] name in self.lostName(name) }
        providers.startCatalog()
    }

    /// This connection's unique name on the bus.
    package var uniqueName: String { connection.uniqueName }

    /// Takes `org.menubus.MenuBus1`, allowing a later `--replace` to take it
    /// over; throws `NameTaken` when someone has it. With `replace`, takes it
    /// from the running daemon and loads the undo journals and provider
    /// choices once that daemon (which writes them before it goes) has left the bus.
    package func claimName(replace: Bool = false) throws {
        let previous = replace ? connection.nameOwner(MenuBusNames.busName) : nil
        switch try connection.requestName(MenuBusNames.busName, replaceExisting: replace) {
        case .owned, .alreadyOwner:
            ownsName = true
            if let previous, previous != uniqueName {
                awaitDeparture(of: previous)
                providers.reloadUsage()
            }
            // Owned: no other daemon of this session writes the histories
            // now; another session's holds its state directory's lock.
            undo.lockStateDirectory()
            for other in configuration.otherStateDirectories where undo.adoptHistory(from: other) {
                providers.adoptUsage(from: other)
            }
            undo.loadDocuments()
        case .taken:
            throw NameTaken(name: MenuBusNames.busName)
        }
    }

    /// Serves until a signal given to `watchSignals` arrives, the bus goes
    /// away, another daemon replaces this one, or the idle timeout passes.
    package func run() -> StopReason {
        stopReason = nil
        startIdleWatch()
        while stopReason == nil {
            loop.run()
        }
        return stopReason ?? .disconnected
    }

    /// Makes `signals` stop `run`. Call it before `claimName`: once the
    /// name is owned, clients (and service managers) may signal at once, and
    /// a signal before this would end the process without releasing the name.
    package func watchSignals(_ signals: [Int32]) {
        guard let watcher = SignalWatcher(signals: signals) else {
            Log.warning("cannot watch signals; stop menubusd with SIGKILL")
            return
        }
        signalWatcher = watcher
        loop.watch(fd: watcher.fd) { [unowned self] in
            while let signal = watcher.next() {
                self.stopReason = .signal(signal)
                self.loop.stop()
            }
        }
    }

    /// Releases the name and closes the connection.
    package func shutdown() {
        undo.settle()
        providers.flushUsage()
        undo.unlockStateDirectory()
        if ownsName, connection.isConnected {
            try? connection.releaseName(MenuBusNames.busName)
            ownsName = false
        }
        connection.flush()
        connection.close()
    }
}
