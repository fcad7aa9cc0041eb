// Must not compile: UpdateItems takes a contextId and items; the items are missing.
import MenuBusDBus
import MenuBusProtocol

func call(_ connection: Connection) throws {
    _ = try connection.callBlocking(
        MenuBusAPI.Manager.updateItems, destination: MenuBusNames.busName, path: MenuBusNames.managerPath, "context")
}
