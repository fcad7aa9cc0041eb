// Must not compile: UpdateItems' contextId is declared `s`, read here as a `u`.
import MenuBusDBus
import MenuBusProtocol

func serve(_ manager: inout Interface) {
    manager.method(MenuBusAPI.Manager.updateItems) { _, contextId, items in
        let id: UInt32 = contextId
        _ = (id, items)
        return UInt32(1)
    }
}
