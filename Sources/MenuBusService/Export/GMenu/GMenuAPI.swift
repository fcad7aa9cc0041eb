import MenuBusDBus
import MenuBusProtocol

/// GLib's menu-model protocols, declared once (their consumers are other
/// projects, so no client of ours shares them). Names, types and order as
/// GLib's `gdbusmenumodel.c` and `gdbusactiongroup.c` use them and
/// `dbus/*.xml` records; values the mapping builds as `DBusValue` are
/// declared by signature.

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
