import MenuBusModel
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

extension Connection {
    /// An asynchronous call to an app's client object; failures are logged, never waited on.
    func callClient<each In, each Out>(
        _ app: App, _ method: DeclaredMethod<ArgumentList<repeat each In>, ArgumentList<repeat each Out>>,
        _ arguments: repeat each In, completion: ((Result<(repeat each Out), BusError>) -> Void)? = nil
    ) {
        let member = method.name
        call(method, destination: app.uniqueName, path: app.clientPath, repeat each arguments,
             timeout: ServiceLimits.clientCallTimeout) { result in
            if case .failure(let error) = result {
                Log.rateLimitedWarning("client|\(app.uniqueName)|\(member)|\(error.name)",
                                       "\(app.appId) (\(app.uniqueName)) \(member) failed: \(error.name)")
            }
            completion?(result)
        }
    }
}

/// What an activation's `platformData` carries on.
enum PlatformData {
    /// Keys of an activation's `platformData` that reach `PerformCommand`
    /// and a provider's `Process` too, so the app or provider can raise its
    /// window under Wayland's focus rules (an xdg-activation token) or order
    /// events. Strings are bounded as every string MenuBus takes.
    static let passedKeys: Set<String> = ["activation-token", "timestamp"]

    /// The entries of `platformData` (already bounded by its entry count)
    /// under `passedKeys`, a string one only within `Limits.maxStringBytes`.
    static func passed(_ platformData: DBusValue) -> [DBusValue] {
        guard case .array(_, let entries) = platformData else { return [] }
        return entries.filter { entry in
            guard case .dictEntry(.string(let key), let value) = entry, passedKeys.contains(key) else { return false }
            if case .variant(.string(let text)) = value { return text.utf8.count <= Limits.maxStringBytes }
            return true
        }
    }

    /// `platformData` for an activation that came through another protocol.
    static func exported(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }
}
