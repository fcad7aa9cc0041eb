#if canImport(Glibc)
import Glibc
#endif
import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Budgets (ServiceLimits.swift): what each connection makes menubusd hold,
/// counted from the stores themselves (the apps' contexts, the presented
/// menus) so the count cannot drift, and handing freed memory back.
package final class Ledger {
    private let budgets: Budgets
    private unowned let loop: MessageLoop
    private unowned let apps: RegisteredApps
    private unowned let presentations: Presentations
    /// Freed memory not yet handed back to the system.
    private var memoryRelease = MemoryRelease()

    init(budgets: Budgets, loop: MessageLoop, apps: RegisteredApps, presentations: Presentations) {
        self.budgets = budgets
        self.loop = loop
        self.apps = apps
        self.presentations = presentations
    }

    /// The budget bytes of a value: its size on the wire.
    package static func cost(_ value: DBusValue) -> Int {
        (try? value.validate(checking: false)) ?? 0
    }

    /// Bytes `uniqueName` makes menubusd hold: its contexts and their caches,
    /// and the menus it presents.
    func heldBytes(by uniqueName: String) -> Int {
        let contexts = apps.heldBytes(by: uniqueName)
        let presented = presentations.bytes(presentedBy: uniqueName)
        return contexts + presented
    }

    /// Bytes all connections make menubusd hold.
    var heldBytesTotal: Int {
        apps.totalBytes + presentations.totalBytes
    }

    /// Refuses, before anything is stored, a change that adds `adding` bytes
    /// (and frees `releasing`) for `uniqueName` past either budget.
    func checkBudget(adding: Int, releasing: Int = 0, for uniqueName: String, field: String,
                     daemonGrowth: Int? = nil) throws {
        let growth = adding - releasing
        guard growth > 0 else { return }
        let held = heldBytes(by: uniqueName)
        if held + growth > budgets.connectionBytes {
            throw BusError(.limitExceeded,
                "\(field): the connection budget (\(budgets.connectionBytes.mebibytes), menubusd --connection-budget) would be exceeded: this connection holds \(held.mebibytes) and this adds \(growth.mebibytes)")
        }
        let total = heldBytesTotal
        let wholeGrowth = daemonGrowth ?? growth
        if total + wholeGrowth > budgets.daemonBytes {
            throw BusError(.limitExceeded,
                "\(field): the daemon budget (\(budgets.daemonBytes.mebibytes), menubusd --daemon-budget) would be exceeded: menubusd holds \(total.mebibytes) for all apps and this adds \(wholeGrowth.mebibytes)")
        }
    }

    /// A context's growth counted against its owner and, with the growth of
    /// every live menu showing it, against the daemon. `shared`: the part of
    /// the growth the menus share with the context instead of holding a copy
    /// (the preview's PNG), counted once.
    func checkContextGrowth(caller: String, contextId: String, adding: Int, releasing: Int, shared: Int = 0,
                            field: String) throws {
        let growth = adding - releasing
        guard growth > 0 else { return }
        let shown = presentations.showing(owner: caller, contextId: contextId).count
        let copied = max(0, growth - shared)
        try checkBudget(adding: adding, releasing: releasing, for: caller, field: field,
                        daemonGrowth: growth + copied * shown * Budgets.presentationFactor)
    }

    /// What a presentation of `context` is charged: the context and its
    /// cached content, in each of its forms; not the preview's PNG, which
    /// the presentation shares with the context.
    static func presentationCost(of context: PublishedContext, provided: Int = 0) -> Int {
        (context.heldBytes - (context.info.preview?.imageBytes ?? 0) + provided + 4096) * Budgets.presentationFactor
    }

    /// Hands freed memory back to the system once a mebibyte or more was
    /// released, so connections that filled their budgets and left do not
    /// leave menubusd resident at its peak: once the releases pause for
    /// `MemoryRelease.quietSeconds` (a burst of connections leaving trims
    /// once, after the last), and at least every `maxWaitSeconds`.
    func releasedMemory(_ bytes: Int) {
        guard bytes > 0 else { return }
        let now = MessageLoop.now()
        memoryRelease.pendingBytes += bytes
        memoryRelease.lastRelease = now
        if memoryRelease.firstRelease == nil { memoryRelease.firstRelease = now }
        guard memoryRelease.pendingBytes >= MemoryRelease.threshold, !memoryRelease.scheduled else { return }
        memoryRelease.scheduled = true
        scheduleTrim()
    }

    private func scheduleTrim() {
        _ = loop.addTimer(after: MemoryRelease.quietSeconds) { [weak self] in
            guard let self else { return }
            let now = MessageLoop.now()
            let quiet = now &- memoryRelease.lastRelease >= MessageLoop.nanoseconds(MemoryRelease.quietSeconds)
            let waited = now &- (memoryRelease.firstRelease ?? now) >= MessageLoop.nanoseconds(MemoryRelease.maxWaitSeconds)
            guard quiet || waited else { return scheduleTrim() }
            memoryRelease = MemoryRelease()
            ProcessMemory.trim()
        }
    }
}

/// Released bytes waiting for `malloc_trim`.
struct MemoryRelease {
    static let threshold = 1 << 20
    static let quietSeconds = 0.1
    static let maxWaitSeconds = 1.0
    var pendingBytes = 0
    var firstRelease: UInt64?
    var lastRelease: UInt64 = 0
    var scheduled = false
}
