// Compiles: a handler and a call that agree with the shared declarations.
// The control for the snippets beside it, which must not compile.
import MenuBusDBus
import MenuBusProtocol

func serve(_ manager: inout Interface) {
    manager.method(MenuBusAPI.Manager.updateItems) { _, contextId, items in
        let id: String = contextId
        _ = (id, items)
        return UInt32(1)
    }
}

func call(_ connection: Connection) throws {
    let revision: UInt32 = try connection.callBlocking(
        MenuBusAPI.Manager.updateItems, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
        "context", .array("(ssa{sv})", []))
    _ = revision
}
