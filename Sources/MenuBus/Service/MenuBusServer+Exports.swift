/// Hooks through which presented menus are also served in the desktop's
/// menu protocols (`com.canonical.dbusmenu`, `org.gtk.Menus`, `org.gtk.Actions`).
extension MenuBusServer {
    /// Extra interfaces served at a presentation's path besides `org.menubus.MenuBus1.Menu`.
    func exportInterfaces(_ number: UInt64) -> [Interface] {
        []
    }

    /// The presentation's layout changed (a new revision): signal it in every protocol.
    func exportsLayoutChanged(_ presentation: Presentation) {}

    /// The presentation is closing; drop per-protocol state.
    func exportsClosed(_ presentation: Presentation) {}

    /// A connection left the bus; drop its subscriptions.
    func exportsPeerLeft(_ uniqueName: String) {}
}
