extension MenuBusServer {
    /// The declaration of `org.menubus.MenuBus1`; the served introspection
    /// of it must equal `dbus/org.menubus.MenuBus1.xml`.
    func managerInterface() -> Interface {
        var manager = Interface(MenuBusServer.managerInterface)
        manager.property("Version", UInt32.self) { MenuBusServer.apiVersion }
        manager.property("Stats", signature: "a{sv}", emitsValue: false) { [unowned self] in
            self.stats.dbusValue(residentBytes: ProcessMemory.residentBytes())
        }
        return manager
    }
}
