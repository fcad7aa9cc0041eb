import MenuBusDBus

/// The members of MenuBus's own interfaces, declared once: menubusd
/// implements them from these declarations and the client library calls
/// and serves them through the same ones, so a handler or a call whose
/// types differ from the declaration does not compile. Member and argument
/// names and order are the served introspection's (`dbus/*.xml`).
///
/// Shapes no Swift type models are `DBusValue`s of a fixed signature:
/// elements (`a(ssa{sv})`), and the `a{sv}` dicts whose fields the daemon
/// checks itself and names in its errors (their order on the wire kept).
package enum MenuBusAPI {
    /// `a(ssa{sv})`: menu elements as `Wire` encodes them.
    static let elements: Signature = "a(ssa{sv})"
    static let dict: Signature = "a{sv}"

    /// `org.menubus.MenuBus1`, at `MenuBusNames.managerPath`.
    package enum Manager {
        static let name = MenuBusNames.managerInterface

        package static let register = declareMethod(
            name, "Register",
            in: arg("appId", String.self), arg("clientPath", ObjectPath.self), arg("options", signature: dict))
        package static let publishContext = declareMethod(
            name, "PublishContext",
            in: arg("contextId", String.self), arg("context", signature: dict), arg("items", signature: elements),
            out: arg("revision", UInt32.self))
        package static let updateItems = declareMethod(
            name, "UpdateItems", in: arg("contextId", String.self), arg("items", signature: elements),
            out: arg("revision", UInt32.self))
        package static let updateSelection = declareMethod(
            name, "UpdateSelection", in: arg("contextId", String.self), arg("selection", signature: dict))
        package static let removeContext = declareMethod(name, "RemoveContext", in: arg("contextId", String.self))
        /// `GetContextMenu` and `GetEditMenu` have one shape.
        package static func composedMenu(_ member: String)
            -> DeclaredMethod<ArgumentList<String, String, DBusValue>, ArgumentList<UInt32, DBusValue>> {
            declareMethod(name, member,
                          in: arg("owner", String.self), arg("contextId", String.self), arg("options", signature: dict),
                          out: arg("revision", UInt32.self), arg("items", signature: elements))
        }
        package static let getContextMenu = composedMenu("GetContextMenu")
        package static let getEditMenu = composedMenu("GetEditMenu")
        package static let getContext = declareMethod(
            name, "GetContext", in: arg("owner", String.self), arg("contextId", String.self),
            out: arg("context", signature: dict), arg("selection", signature: dict), arg("revision", UInt32.self),
            arg("items", signature: elements))
        package static let presentMenu = declareMethod(
            name, "PresentMenu",
            in: arg("owner", String.self), arg("contextId", String.self), arg("kind", String.self),
            arg("options", signature: dict),
            out: arg("menu", ObjectPath.self))
        package static let activatePrimaryAction = declareMethod(
            name, "ActivatePrimaryAction",
            in: arg("owner", String.self), arg("contextId", String.self), arg("platformData", signature: dict))
        package static let showMenuForFocus = declareMethod(
            name, "ShowMenuForFocus", in: arg("options", signature: dict),
            out: arg("appId", String.self), arg("contextId", String.self))
        package static let lint = declareMethod(
            name, "Lint", in: arg("kind", String.self), arg("items", signature: elements),
            out: arg("findings", signature: "a(sss)"))
        package static let registerProvider = declareMethod(
            name, "RegisterProvider",
            in: arg("providerId", String.self), arg("providerPath", ObjectPath.self), arg("properties", signature: dict))
        package static let unregisterProvider = declareMethod(name, "UnregisterProvider", in: arg("providerId", String.self))

        // Undo (Undo.swift).
        static let document = arg("documentId", String.self)
        package static let registerUndo = declareMethod(
            name, "RegisterUndo",
            in: document, arg("actionName", String.self), arg("undoData", [UInt8].self), arg("redoData", [UInt8].self),
            arg("options", signature: dict),
            out: arg("undoCount", UInt32.self))
        package static let beginUndoGroup = declareMethod(
            name, "BeginUndoGroup", in: document, arg("actionName", String.self))
        package static let endUndoGroup = declareMethod(name, "EndUndoGroup", in: document)
        /// `Undo` and `Redo` have one shape.
        package static func undoMove(_ member: String)
            -> DeclaredMethod<ArgumentList<String>, ArgumentList<String, [[UInt8]]>> {
            declareMethod(name, member, in: document, out: arg("actionName", String.self), arg("payloads", [[UInt8]].self))
        }
        package static let undo = undoMove("Undo")
        package static let redo = undoMove("Redo")
        package static let getUndoState = declareMethod(
            name, "GetUndoState", in: document, out: arg("state", signature: dict))
        package static let setUndoLimit = declareMethod(
            name, "SetUndoLimit", in: document, arg("levels", UInt32.self))
        package static let markClean = declareMethod(name, "MarkClean", in: document)
        package static let clearUndo = declareMethod(name, "ClearUndo", in: document)
        package static let undoStateChanged = declareSignal(
            name, "UndoStateChanged", arg("appId", String.self), document, arg("state", signature: dict))

        package static let listProviders = declareMethod(
            name, "ListProviders", out: arg("providers", signature: "a(sa{sv})"))
        package static let listContexts = declareMethod(
            name, "ListContexts", out: arg("contexts", signature: "a(sss)"))
    }

    /// `org.menubus.MenuBus1.Menu`, at a presented menu's path.
    package enum Menu {
        static let name = MenuBusNames.menuInterface

        package static let getLayout = declareMethod(
            name, "GetLayout", out: arg("revision", UInt32.self), arg("items", signature: elements))
        package static let activate = declareMethod(
            name, "Activate", in: arg("itemId", String.self), arg("platformData", signature: dict))
        package static let dismiss = declareMethod(name, "Dismiss")
        package static let layoutChanged = declareSignal(
            name, "LayoutChanged", arg("revision", UInt32.self), arg("items", signature: elements))
        package static let closed = declareSignal(name, "Closed")
        package static let providerResult = declareSignal(
            name, "ProviderResult", arg("providerId", String.self), arg("text", String.self), arg("info", signature: dict))
    }

    /// `org.menubus.MenuBus1.Client`, served by an app at its client path.
    package enum Client {
        static let name = MenuBusNames.clientInterface

        package static let actionInvoked = declareMethod(
            name, "ActionInvoked",
            in: arg("contextId", String.self), arg("itemId", String.self), arg("platformData", signature: dict))
        package static let performCommand = declareMethod(
            name, "PerformCommand",
            in: arg("contextId", String.self), arg("command", String.self), arg("arguments", signature: dict))
        package static let menuPresented = declareMethod(
            name, "MenuPresented",
            in: arg("contextId", String.self), arg("kind", String.self), arg("menu", ObjectPath.self))
        package static let provideElements = declareMethod(
            name, "ProvideElements", in: arg("contextId", String.self), arg("elementId", String.self),
            out: arg("elements", signature: elements))
        package static let getSelectedText = declareMethod(
            name, "GetSelectedText", in: arg("contextId", String.self), out: arg("text", String.self))
        package static let showEditMenu = declareMethod(
            name, "ShowEditMenu", in: arg("contextId", String.self), arg("platformData", signature: dict))
    }

    /// `org.menubus.MenuBus1.Provider`, served by a provider at its path.
    package enum Provider {
        static let name = MenuBusNames.providerInterface

        package static let process = declareMethod(
            name, "Process",
            in: arg("providerId", String.self), arg("text", String.self), arg("context", signature: dict),
            out: arg("replacement", String.self), arg("info", signature: dict))
    }
}
