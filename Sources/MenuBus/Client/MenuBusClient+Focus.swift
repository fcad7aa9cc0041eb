import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

extension MenuBusClient {
    /// Seconds menubusd gives the focused app to show its menu.
    static let showMenuWait: Double = 5

    /// `ShowMenuForFocus`: asks the app whose field has the keyboard focus
    /// to show MenuBus's edit menu there, as a desktop shortcut does;
    /// `timestamp` is the input event's time, passed on to the app. Returns
    /// the app and context that showed it. Throws `NoSuchContext` when no
    /// field that takes part has the focus, `ClientFailed` when the app did
    /// not show it, `AccessDenied` in a sandbox. Waits for the app's answer
    /// too: up to `callTimeout` plus five seconds.
    public func showMenuForFocus(timestamp: UInt32? = nil) throws -> (appId: String, contextId: String) {
        let options: [String: DBusValue] = timestamp.map { ["timestamp": .uint32($0)] } ?? [:]
        return try connection.callBlocking(MenuBusAPI.Manager.showMenuForFocus, destination: MenuBusNames.busName,
                                           path: MenuBusNames.managerPath, options.dbusValue,
                                           timeout: callTimeout + Self.showMenuWait)
    }
}
