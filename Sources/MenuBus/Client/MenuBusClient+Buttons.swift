import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// Previews and button menus: what a presenter draws above a presented
/// menu and chooses there, and what a toolbar button runs on a tap.
extension MenuBusClient {
    /// The preview a presented menu serves (its `Preview` property): nil
    /// when the context has none or the menu was presented `compact`.
    public func preview(of menu: PresentedMenu) throws -> ContextPreview? {
        let value = try connection.callBlocking(FreedesktopAPI.get, destination: MenuBusNames.busName, path: menu.path,
                                                MenuBusNames.menuInterface, "Preview", timeout: callTimeout)
        guard case .array(_, let entries) = value, !entries.isEmpty else { return nil }
        do throws(ModelError) {
            return try ContextPreview(wire: value, field: "Preview")
        } catch {
            throw error.busError
        }
    }

    /// Chooses the menu's preview (UIKit's preview commit): the owner hears
    /// `ActionInvoked` of `menubus:preview`, and the menu closes.
    public func choosePreview(_ menu: PresentedMenu, platformData: [String: DBusValue] = [:]) throws {
        try activate(menu, itemId: ElementID.preview, platformData: platformData)
    }

    /// Runs a button context's primary action, as a tap on it: its owner
    /// hears `ActionInvoked` of the primary item's id. Press and hold is
    /// `present(owner:contextId:kind:)`.
    public func activatePrimaryAction(owner: String = "", contextId: String,
                                      platformData: [String: DBusValue] = [:]) throws {
        try callManager(MenuBusAPI.Manager.activatePrimaryAction, owner, contextId, platformData.dbusValue)
    }
}
