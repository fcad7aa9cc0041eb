import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// The keyboard focus as the apps report it (the selection key `focused`),
/// and `ShowMenuForFocus`, which asks the focused app to show its edit menu.
extension Contexts {
    /// The context whose field has the keyboard focus: of the live contexts
    /// whose selection says `focused`, the one that said it last. A context
    /// removed, or whose connection left, is gone from here with it.
    func focusedContext() -> (app: App, context: PublishedContext)? {
        var focused: (app: App, context: PublishedContext, revision: UInt32)?
        for app in byName.values {
            for context in app.contexts.values {
                guard let revision = context.focusRevision, revision > focused?.revision ?? 0 else { continue }
                focused = (app, context, revision)
            }
        }
        return focused.map { ($0.app, $0.context) }
    }

    /// `ShowMenuForFocus`: for an unsandboxed caller, calls the focused
    /// app's `ShowEditMenu` and answers `call` with its app and context ids
    /// once the app has answered, or `ClientFailed`. The caller learns which
    /// app and context, never the selection, nor what the app answered.
    func showMenuForFocus(_ call: MethodCall, options: DBusValue, connection: Connection) throws {
        try trust.checkFocusRequest(caller: call.sender)
        try ServiceValidation.optionCount(options, field: "options")
        var platformData: [DBusValue] = []
        for (key, value) in options.dictEntries ?? [] where key.stringValue == "timestamp" {
            guard case .uint32 = value.unwrapped else {
                throw WireValue.mismatch(value.unwrapped, expected: "u", field: "options.timestamp").busError
            }
            platformData = [.dictEntry(.string("timestamp"), .variant(value.unwrapped))]
        }
        guard let (app, context) = focusedContext() else {
            throw BusError(.noSuchContext, "no field that takes part in MenuBus has the keyboard focus")
        }
        let pending = call.deferReply()
        let appId = app.appId, contextId = context.id
        app.callClient(connection, MenuBusAPI.Client.showEditMenu, contextId, .array("{sv}", platformData)) { result in
            switch result {
            case .success:
                pending.reply(MenuBusAPI.Manager.showMenuForFocus, appId, contextId)
            case .failure(let error):
                pending.fail(BusError(.clientFailed, "\(appId) could not show its menu: " + Contexts.why(error)))
            }
        }
    }

    /// Why the app did not show its menu, in a few words and the error's
    /// name (never its message, which is the app's own).
    private static func why(_ error: BusError) -> String {
        switch error.name {
        case BusError.Standard.unknownMethod, BusError.Standard.unknownInterface, BusError.Standard.unknownObject:
            "it does not serve ShowEditMenu (\(error.name))"
        case BusError.Standard.noReply, BusError.Standard.timeout:
            "it did not answer in time (\(error.name))"
        default:
            "it answered \(error.name)"
        }
    }
}
