import MenuBusDBus
import MenuBusProtocol

/// The members of the desktop menu protocols a presented menu is also
/// served in, declared once (their consumers are other projects, so no
/// client of ours shares them). Names, types and order as the
/// specifications give them and `dbus/*.xml` records; values built by the
/// exports as `DBusValue` are declared by signature.

/// `com.canonical.dbusmenu`, version 3.
enum DBusMenuAPI {
    static let name = MenuBusNames.dbusMenuInterface

    static let getLayout = declareMethod(
        name, "GetLayout",
        in: arg("parentId", Int32.self), arg("recursionDepth", Int32.self), arg("propertyNames", [String].self),
        out: arg("revision", UInt32.self), arg("layout", signature: "(ia{sv}av)"))
    static let getGroupProperties = declareMethod(
        name, "GetGroupProperties", in: arg("ids", [Int32].self), arg("propertyNames", [String].self),
        out: arg("properties", signature: "a(ia{sv})"))
    static let getProperty = declareMethod(
        name, "GetProperty", in: arg("id", Int32.self), arg("name", String.self), out: arg("value", DBusValue.self))
    static let event = declareMethod(
        name, "Event",
        in: arg("id", Int32.self), arg("eventId", String.self), arg("data", DBusValue.self), arg("timestamp", UInt32.self))
    static let eventGroup = declareMethod(
        name, "EventGroup", in: arg("events", signature: "a(isvu)"), out: arg("idErrors", [Int32].self))
    static let aboutToShow = declareMethod(
        name, "AboutToShow", in: arg("id", Int32.self), out: arg("needUpdate", Bool.self))
    static let aboutToShowGroup = declareMethod(
        name, "AboutToShowGroup", in: arg("ids", [Int32].self),
        out: arg("updatesNeeded", [Int32].self), arg("idErrors", [Int32].self))
    static let itemsPropertiesUpdated = declareSignal(
        name, "ItemsPropertiesUpdated", arg("updatedProps", signature: "a(ia{sv})"), arg("removedProps", signature: "a(ias)"))
    static let layoutUpdated = declareSignal(
        name, "LayoutUpdated", arg("revision", UInt32.self), arg("parent", Int32.self))
    static let itemActivationRequested = declareSignal(
        name, "ItemActivationRequested", arg("id", Int32.self), arg("timestamp", UInt32.self))
}

/// `org.gtk.Menus`, as GLib's `GDBusMenuModel` reads it.
enum GtkMenusAPI {
    static let name = MenuBusNames.gtkMenusInterface

    static let start = declareMethod(
        name, "Start", in: arg("groups", [UInt32].self), out: arg("content", signature: "a(uuaa{sv})"))
    static let end = declareMethod(name, "End", in: arg("groups", [UInt32].self))
    static let changed = declareSignal(name, "Changed", arg("changes", signature: "a(uuuuaa{sv})"))
}

/// `org.gtk.Actions`, as GLib's `GDBusActionGroup` reads it.
enum GtkActionsAPI {
    static let name = MenuBusNames.gtkActionsInterface

    static let list = declareMethod(name, "List", out: arg("list", signature: "as"))
    static let describe = declareMethod(
        name, "Describe", in: arg("action_name", String.self), out: arg("description", signature: "(bgav)"))
    static let describeAll = declareMethod(name, "DescribeAll", out: arg("descriptions", signature: "a{s(bgav)}"))
    static let activate = declareMethod(
        name, "Activate",
        in: arg("action_name", String.self), arg("parameter", [DBusValue].self), arg("platform_data", signature: "a{sv}"))
    static let setState = declareMethod(
        name, "SetState",
        in: arg("action_name", String.self), arg("value", DBusValue.self), arg("platform_data", signature: "a{sv}"))
    static let changed = declareSignal(
        name, "Changed", arg("removals", signature: "as"), arg("enable_changes", signature: "a{sb}"),
        arg("state_changes", signature: "a{sv}"), arg("additions", signature: "a{s(bgav)}"))
}
