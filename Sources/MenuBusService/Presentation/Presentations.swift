import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The presented menus, with all their data: each live menu by number
/// (from `PresentMenu` until it closes), the numbers handed out, the bytes
/// each is charged against its presenter's budget (charged only while
/// live), and the state each serves the desktop's menu protocols with
/// (`PresentationExports`), which outlives the menu for a moment to show
/// consumers an empty menu before its object goes.
///
/// `PresentedMenus` drives these methods (a context changed →
/// `markStale(owner:contextId:)`, then signals what they return); the
/// `Ledger` reads the charges; nothing else reads or writes this data.
package final class Presentations {
    /// Live presented menus by number.
    private var live: [UInt64: Presentation] = [:]
    /// Bytes each live presentation is charged.
    private var bytes: [UInt64: Int] = [:]
    /// The last number handed out; a number is never handed out twice.
    private var lastNumber: UInt64 = 0
    /// Per-presentation state of the desktop menu protocols, from the
    /// menu's export until its object goes.
    private var exports: [UInt64: PresentationExports] = [:]

    // MARK: Live menus

    /// The live presentation `number`; nil once it closed.
    package subscript(number: UInt64) -> Presentation? { live[number] }

    /// Every live presentation.
    package var values: Dictionary<UInt64, Presentation>.Values { live.values }
    package var count: Int { live.count }
    package var isEmpty: Bool { live.isEmpty }

    /// Refuses a presenter that holds `maxPresentationsPerPresenter` live menus.
    func checkRoom(for presenter: String) throws(BusError) {
        let held = live.values.filter { $0.presenter == presenter }.count
        guard held < ServiceLimits.maxPresentationsPerPresenter else {
            throw BusError(.limitExceeded, "a presenter may hold at most \(ServiceLimits.maxPresentationsPerPresenter) live menus; dismiss some first")
        }
    }

    /// Adds the presentation `make` builds with the next number, charged `cost`.
    func add(cost: Int, _ make: (UInt64) -> Presentation) -> Presentation {
        lastNumber += 1
        let presentation = make(lastNumber)
        live[presentation.number] = presentation
        bytes[presentation.number] = cost
        return presentation
    }

    /// What a live presentation is charged from now on.
    func charge(_ number: UInt64, _ cost: Int) {
        guard live[number] != nil else { return }
        bytes[number] = cost
    }

    /// Takes a presentation out, with its charge; nil when it was not live.
    /// Its exports stay until `dropExports`.
    @discardableResult
    func remove(_ number: UInt64) -> Presentation? {
        bytes[number] = nil
        bytes.releaseSpareCapacity()
        defer { live.releaseSpareCapacity() }
        return live.removeValue(forKey: number)
    }

    /// Bytes charged for the menus `uniqueName` presents.
    func bytes(presentedBy uniqueName: String) -> Int {
        live.values.reduce(0) { $1.presenter == uniqueName ? $0 + (bytes[$1.number] ?? 0) : $0 }
    }

    /// Bytes charged for every live menu.
    var totalBytes: Int { bytes.values.reduce(0, +) }

    /// The live menus showing context `contextId` of `owner`.
    func showing(owner: String, contextId: String) -> [Presentation] {
        live.values.filter { $0.owner == owner && $0.contextId == contextId }
    }

    // MARK: Staleness

    /// The live menus of context `contextId` of `owner` are stale; returns them, to signal.
    func markStale(owner: String, contextId: String) -> [Presentation] {
        markStale(showing(owner: owner, contextId: contextId))
    }

    /// Every live menu is stale (each may show providers); returns them, to signal.
    func markAllStale() -> [Presentation] {
        markStale(Array(live.values))
    }

    private func markStale(_ presentations: [Presentation]) -> [Presentation] {
        for presentation in presentations { presentation.markStale() }
        return presentations
    }

    // MARK: Exports

    /// Presentation `number`'s object is exported now: its exports start, empty.
    func startExports(_ number: UInt64, owner: String, presenter: String) {
        exports[number] = PresentationExports(owner: owner, presenter: presenter)
    }

    /// The exports of presentation `number`, live or closing; nil once its object went.
    package func exports(_ number: UInt64) -> PresentationExports? {
        exports[number]
    }

    /// The paths of the presentations with exports, live or closing: the objects served.
    var exportedPaths: [ObjectPath] {
        exports.keys.map(Presentation.path(of:))
    }

    /// Whether `state` is still presentation `number`'s exports.
    func isCurrent(_ state: PresentationExports, of number: UInt64) -> Bool {
        exports[number] === state
    }

    /// The object of presentation `number` went: so do its exports.
    func dropExports(_ number: UInt64) {
        exports[number] = nil
        exports.releaseSpareCapacity()
    }

    /// A connection left the bus: what it held in every export goes.
    /// Returns the presentations it was the last consumer holding open of
    /// (the consumer closed them).
    func peerLeft(_ uniqueName: String) -> [UInt64] {
        var closed: [UInt64] = []
        for (number, state) in exports {
            state.readerLeft(uniqueName)
            var wasLast = false
            for export in state.protocols where export.peerLeft(uniqueName) { wasLast = true }
            if wasLast { closed.append(number) }
        }
        return closed
    }

    /// A consumer closed presentation `number`: the number of this end
    /// request, for `isEndRequested` once the delay passed; nil when it has
    /// no exports or they are closing.
    func requestEnd(_ number: UInt64) -> Int? {
        guard let state = exports[number], !state.isClosing else { return nil }
        state.endRequests += 1
        return state.endRequests
    }

    /// A consumer opened presentation `number` (again): a pending end is called off.
    func callOffEnd(_ number: UInt64) {
        exports[number]?.endRequests += 1
    }

    /// Whether end request `request` of presentation `number` still holds.
    func isEndRequested(_ number: UInt64, _ request: Int) -> Bool {
        exports[number]?.endRequests == request
    }
}
