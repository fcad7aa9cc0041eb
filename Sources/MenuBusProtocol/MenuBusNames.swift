import MenuBusDBus

/// The names the daemon serves and its clients call: one place for both.
public enum MenuBusNames {
    /// The well-known name the daemon owns.
    public static let busName = "org.menubus.MenuBus1"
    /// The manager object's path.
    public static let managerPath: ObjectPath = "/org/menubus/MenuBus1"
    /// The manager interface.
    public static let managerInterface = "org.menubus.MenuBus1"
    /// A presented menu's interface.
    public static let menuInterface = "org.menubus.MenuBus1.Menu"
    /// The interface an app serves at its client path.
    public static let clientInterface = "org.menubus.MenuBus1.Client"
    /// The interface a provider serves at its path.
    public static let providerInterface = "org.menubus.MenuBus1.Provider"
    /// The desktop menu protocols every presented menu is also served in.
    public static let dbusMenuInterface = "com.canonical.dbusmenu"
    public static let gtkMenusInterface = "org.gtk.Menus"
    public static let gtkActionsInterface = "org.gtk.Actions"
    /// This release of MenuBus.
    public static let softwareVersion = "0.1.0"
    /// The API version served as the `Version` property.
    public static let apiVersion: UInt32 = 1
}
