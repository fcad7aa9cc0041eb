import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

/// A connection that called `Register`, and the contexts it published.
package struct App {
    package let uniqueName: String
    package var appId: String
    package var clientPath: ObjectPath
    /// Order of registration across the daemon; "most recent" for owner lookup.
    package var sequence: UInt64
    package var contexts: [String: PublishedContext] = [:]
}

extension App {
    /// An asynchronous call to this app's client object over `connection`;
    /// failures are logged, never waited on.
    func callClient<each In, each Out>(
        _ connection: Connection, _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ arguments: repeat each In, completion: ((Result<(repeat each Out), BusError>) -> Void)? = nil
    ) {
        let member = method.name
        let appId = appId, uniqueName = uniqueName
        connection.call(method, destination: uniqueName, path: clientPath, repeat each arguments,
                        timeout: ServiceLimits.clientCallTimeout) { result in
            if case .failure(let error) = result {
                Log.rateLimitedWarning("client|\(uniqueName)|\(member)|\(error.name)",
                                       "\(appId) (\(uniqueName)) \(member) failed: \(error.name)")
            }
            completion?(result)
        }
    }
}

/// One on-screen item an app published, with its own items and selection.
package struct PublishedContext {
    package let id: String
    package var info: ContextInfo
    package var items: [MenuElement] {
        didSet { dropStaleCacheEntries() }
    }
    package var selection = Selection()
    /// Grows on every change of info, items or selection, from one daemon-wide
    /// counter; never goes back, even across RemoveContext and PublishContext.
    package var revision: UInt32
    /// The revision of the last `UpdateSelection` that said `focused` true,
    /// while the selection still says so: the focused context is the live
    /// one with the greatest (Contexts+Focus.swift).
    var focusRevision: UInt32?
    /// What the app provided for its `cached` deferred elements.
    var deferredCache: [String: [MenuElement]] = [:] {
        didSet { if deferredCache.count < oldValue.count { cacheBytes = cacheBytes.filter { deferredCache[$0.key] != nil } } }
    }
    /// Budget bytes of info, items and selection, as they came over the wire.
    var infoBytes = 0, itemsBytes = 0, selectionBytes = 0
    var storedBytes: Int { infoBytes + itemsBytes + selectionBytes }
    /// Budget bytes of each cached deferred element's content.
    var cacheBytes: [String: Int] = [:]
    /// Everything this context makes menubusd hold.
    var heldBytes: Int { storedBytes + cacheBytes.values.reduce(0, +) }

    package init(id: String, info: ContextInfo, items: [MenuElement], revision: UInt32) {
        self.id = id
        self.info = info
        self.items = items
        self.revision = revision
    }

    /// Keeps cache entries only for deferred elements the items still have.
    private mutating func dropStaleCacheEntries() {
        guard !deferredCache.isEmpty else { return }
        let deferred = Set(items.lazy.filter { $0.kind == .deferred && $0.cached }.map(\.id))
        deferredCache = deferredCache.filter { deferred.contains($0.key) }
    }
}

/// A connection that offers a service to every app's menus.
package struct RegisteredProvider {
    package let info: ProviderInfo
    package let owner: String
    package let path: ObjectPath
    /// Registration order: menus list providers in it.
    package let sequence: UInt64
}
