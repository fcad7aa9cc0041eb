/// An object served at one path: the standard interfaces (Introspectable,
/// Properties, Peer) bound once at export, then its own, in declaration order.
final class ExportedObject {
    let path: ObjectPath
    let interfaces: [Interface]
    /// Who may call it: given the sender and the interface called, the
    /// refusal, or nil to let the call through. Introspectable and Peer
    /// stay open to all.
    let access: ((_ sender: String, _ interface: String) -> BusError?)?
    private(set) var allInterfaces: [Interface] = []

    init(path: ObjectPath, interfaces: [Interface], access: ((String, String) -> BusError?)? = nil) {
        self.path = path
        self.interfaces = interfaces
        self.access = access
    }

    func bindStandardInterfaces(_ standard: [Interface]) {
        allInterfaces = standard + interfaces
    }

    func interface(named name: String) -> Interface? {
        interfaces.first { $0.name == name }
    }
}
