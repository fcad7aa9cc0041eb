import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// The connections that called `Register` and the contexts they published
/// (Contexts.swift): each app by unique name, in
/// registration order, and the daemon-wide counter context revisions
/// come from. The budgets read what they hold from here.
package final class RegisteredApps {
    /// Registered apps by unique name.
    package private(set) var byName: [String: App] = [:]
    /// The last registration number handed out; the most recent registration wins an app id.
    private var lastSequence: UInt64 = 0
    /// The last context revision handed out.
    private var lastRevision: UInt32 = 0
    /// Bytes each app's contexts and caches hold, and all apps': kept as
    /// they change, so a budget check on every change reads them instead
    /// of walking every context of every app.
    private var heldByName: [String: Int] = [:]
    private(set) var totalBytes = 0

    package subscript(uniqueName: String) -> App? { byName[uniqueName] }

    /// Registers `caller` as `appId` at `clientPath`, or moves its client
    /// path; refuses another app id for a registered connection. True when
    /// the connection was not registered before.
    func register(_ caller: String, appId: String, clientPath: ObjectPath) throws(BusError) -> Bool {
        if var app = byName[caller] {
            guard app.appId == appId else {
                throw BusError.invalidArgs("appId: this connection is already registered as '\(app.appId)'")
            }
            app.clientPath = clientPath
            byName[caller] = app
            return false
        }
        lastSequence += 1
        byName[caller] = App(uniqueName: caller, appId: appId, clientPath: clientPath, sequence: lastSequence)
        return true
    }

    /// The next context revision, from one counter for the whole daemon: a
    /// context removed and published again never goes back to a revision a
    /// reader already saw.
    func nextRevision() -> UInt32 {
        lastRevision &+= 1
        if lastRevision == 0 { lastRevision = 1 }
        return lastRevision
    }

    /// Stores `context` as published by the registered app `owner`.
    func store(_ context: PublishedContext, of owner: String) {
        guard byName[owner] != nil else { return }
        let before = byName[owner]?.contexts[context.id]?.heldBytes ?? 0
        byName[owner]?.contexts[context.id] = context
        held(by: owner, changedBy: context.heldBytes - before)
    }

    /// Removes context `contextId` of `owner`.
    func removeContext(_ contextId: String, of owner: String) {
        guard let removed = byName[owner]?.contexts.removeValue(forKey: contextId) else { return }
        held(by: owner, changedBy: -removed.heldBytes)
    }

    /// Keeps what the owner provided for its cached deferred element `elementId`, counted as `bytes`.
    func cache(_ content: [MenuElement], bytes: Int, for elementId: String, in contextId: String, of owner: String) {
        guard let before = byName[owner]?.contexts[contextId]?.heldBytes else { return }
        byName[owner]?.contexts[contextId]?.deferredCache[elementId] = content
        byName[owner]?.contexts[contextId]?.cacheBytes[elementId] = bytes
        held(by: owner, changedBy: (byName[owner]?.contexts[contextId]?.heldBytes ?? 0) - before)
    }

    /// The connection left: its registration and contexts go.
    func remove(_ uniqueName: String) -> App? {
        totalBytes -= heldByName.removeValue(forKey: uniqueName) ?? 0
        heldByName.releaseSpareCapacity()
        defer { byName.releaseSpareCapacity() }
        return byName.removeValue(forKey: uniqueName)
    }

    /// Bytes of `uniqueName`'s contexts and their caches.
    func heldBytes(by uniqueName: String) -> Int {
        heldByName[uniqueName] ?? 0
    }

    /// What `heldBytes` and `totalBytes` keep, counted again from every
    /// context (tests check the two agree).
    var countedBytes: (byName: [String: Int], total: Int) {
        var held: [String: Int] = [:]
        for (name, app) in byName where !app.contexts.isEmpty {
            held[name] = app.contexts.values.reduce(0) { $0 + $1.heldBytes }
        }
        return (held, held.values.reduce(0, +))
    }

    private func held(by owner: String, changedBy delta: Int) {
        guard delta != 0 else { return }
        let now = (heldByName[owner] ?? 0) + delta
        heldByName[owner] = now == 0 ? nil : now
        totalBytes += delta
    }

    /// Contexts published by all apps.
    var contextCount: Int { byName.values.reduce(0) { $0 + $1.contexts.count } }
}
