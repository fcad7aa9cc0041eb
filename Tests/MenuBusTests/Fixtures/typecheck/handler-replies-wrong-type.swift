// Must not compile: UpdateItems replies a `u` revision, not a string.
import MenuBusDBus
import MenuBusProtocol

func serve(_ manager: inout Interface) {
    manager.method(MenuBusAPI.Manager.updateItems) { _, contextId, _ in
        contextId
    }
}
