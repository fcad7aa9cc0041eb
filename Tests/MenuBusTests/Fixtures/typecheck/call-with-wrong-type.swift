// Must not compile: Register's clientPath is declared `o`; a string is sent.
import MenuBusDBus
import MenuBusProtocol

func call(_ connection: Connection, clientPath: String) throws {
    try connection.callBlocking(
        MenuBusAPI.Manager.register, destination: MenuBusNames.busName, path: MenuBusNames.managerPath,
        "org.example.App", clientPath, .array("{sv}", []))
}
