/// An object served at one path: the standard interfaces (Introspectable,
/// Properties, Peer) bound once at export, then its own, in declaration order.
final class ExportedObject {
    let path: ObjectPath
    let interfaces: [Interface]
    private(set) var allInterfaces: [Interface] = []

    init(path: ObjectPath, interfaces: [Interface]) {
        self.path = path
        self.interfaces = interfaces
    }

    func bindStandardInterfaces(_ standard: [Interface]) {
        allInterfaces = standard + interfaces
    }

    func interface(named name: String) -> Interface? {
        interfaces.first { $0.name == name }
    }
}
