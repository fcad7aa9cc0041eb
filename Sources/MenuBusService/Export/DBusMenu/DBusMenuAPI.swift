import MenuBusDBus
import MenuBusProtocol

/// `com.canonical.dbusmenu`, version 3, declared once (its consumers are
/// other projects, so no client of ours shares it). Names, types and order
/// as the specification gives them and `dbus/*.xml` records; values the
/// mapping builds as `DBusValue` are declared by signature.
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
