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
