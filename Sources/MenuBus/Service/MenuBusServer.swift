#if canImport(Glibc)
import Glibc
#endif

/// The daemon: one connection, one loop, the manager object and all state.
///
/// ```swift
/// let server = try MenuBusServer(configuration: .init(address: nil))
/// server.watchSignals([SIGTERM, SIGINT])
/// try server.claimName()
/// let reason = server.run()
/// server.shutdown()
/// ```
public final class MenuBusServer {
    /// The well-known name the daemon owns.
    public static let busName = "org.menubus.MenuBus1"
    /// The manager object's path.
    public static let managerPath: ObjectPath = "/org/menubus/MenuBus1"
    /// The manager interface.
    public static let managerInterface = "org.menubus.MenuBus1"
    /// This release of MenuBus.
    public static let softwareVersion = "0.1.0"
    /// The API version served as the `Version` property.
    public static let apiVersion: UInt32 = 1

    /// Settings from the command line.
    public struct Configuration: Sendable {
        /// A D-Bus address; nil means the session bus.
        public var address: String?
        /// Seconds to wait for an app's `ProvideElements` before the element disappears.
        public var deferredTimeout: Double
        /// Where undo journals live: `$XDG_STATE_HOME/menubus`, else `~/.local/state/menubus`.
        public var stateDirectory: String
        /// Undo documents untouched for this many days are removed at start; nil keeps them.
        public var undoRetentionDays: Int?

        public init(address: String? = nil, deferredTimeout: Double = 3, stateDirectory: String? = nil,
                    undoRetentionDays: Int? = 90) {
            self.address = address
            self.deferredTimeout = deferredTimeout
            self.stateDirectory = stateDirectory ?? Configuration.defaultStateDirectory()
            self.undoRetentionDays = undoRetentionDays
        }

        /// `$XDG_STATE_HOME/menubus`, else `$HOME/.local/state/menubus`.
        public static func defaultStateDirectory() -> String {
            if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") {
                return state + "/menubus"
            }
            let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
            return home + "/.local/state/menubus"
        }
    }

    /// Why `run` returned.
    public enum StopReason: Equatable, Sendable {
        case signal(Int32)
        case disconnected
    }

    /// Raised by `claimName` when another connection owns the name.
    public struct NameTaken: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "the name \(name) is already owned on this bus" }
    }

    let configuration: Configuration
    let loop = MessageLoop()
    let connection: Connection
    /// Registered apps by unique name.
    var apps: [String: App] = [:]
    var registrationCounter: UInt64 = 0
    /// Live presented menus by number.
    var presentations: [UInt64: Presentation] = [:]
    var nextPresentationNumber: UInt64 = 0
    /// Per-presentation state of the other menu protocols (MenuBusServer+Exports.swift).
    var exports: [UInt64: PresentationExports] = [:]
    /// Registered providers by id.
    var providers: [String: RegisteredProvider] = [:]
    /// `ProvideElements` calls made so far (for tests and diagnostics).
    var deferredCallsStarted = 0
    /// Undo documents and their journals.
    let undoStore: UndoStore
    var undoSyncScheduled = false

    /// When the server was made (monotonic nanoseconds), for `Stats`' `uptime-seconds`.
    let startedAt = MessageLoop.now()

    var stats: Stats {
        Stats(startedAt: startedAt, apps: UInt32(apps.count),
              contexts: UInt32(apps.values.reduce(0) { $0 + $1.contexts.count }),
              documents: UInt32(clamping: undoStore.documentCount),
              presentations: UInt32(presentations.count),
              providers: UInt32(providers.count))
    }
    private var ownsName = false
    private var stopReason: StopReason?
    private var signalWatcher: SignalWatcher?

    /// Connects to the bus; throws `BusError` when it cannot.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        undoStore = UndoStore(stateDirectory: configuration.stateDirectory)
        connection = try Connection(address: configuration.address, loop: loop)
        connection.disconnected = { [unowned self] in
            self.stopReason = .disconnected
            self.loop.stop()
        }
        connection.export(MenuBusServer.managerPath, [managerInterface()])
        connection.nameLost = { [unowned self] name, _ in
            if name.hasPrefix(":") { self.peerLeft(name) }
        }
        connection.trackPeers()
    }

    /// This connection's unique name on the bus.
    public var uniqueName: String { connection.uniqueName }

    /// Takes `org.menubus.MenuBus1`; throws `NameTaken` when someone has it.
    public func claimName() throws {
        switch try connection.requestName(MenuBusServer.busName) {
        case .owned, .alreadyOwner:
            ownsName = true
            loadUndoDocuments()
        case .taken:
            throw NameTaken(name: MenuBusServer.busName)
        }
    }

    /// Serves until a signal given to `watchSignals` arrives or the bus goes away.
    public func run() -> StopReason {
        stopReason = nil
        while stopReason == nil {
            loop.run()
        }
        return stopReason ?? .disconnected
    }

    /// Makes `signals` stop `run`. Call it before `claimName`: once the
    /// name is owned, clients (and service managers) may signal at once, and
    /// a signal before this would end the process without releasing the name.
    public func watchSignals(_ signals: [Int32]) {
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
    public func shutdown() {
        if undoStore.hasUnsyncedWrites { _ = undoStore.sync() }
        if ownsName, connection.isConnected {
            try? connection.releaseName(MenuBusServer.busName)
            ownsName = false
        }
        connection.flush()
        connection.close()
    }
}
