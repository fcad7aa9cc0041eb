/// An object served at one path: the standard interfaces (Introspectable,
/// Properties, Peer) bound once at export, then its own, in declaration order.
package final class ExportedObject {
    package let path: ObjectPath
    package let interfaces: [Interface]
    package private(set) var allInterfaces: [Interface] = []

    package init(path: ObjectPath, interfaces: [Interface]) {
        self.path = path
        self.interfaces = interfaces
    }

    package func bindStandardInterfaces(_ standard: [Interface]) {
        allInterfaces = standard + interfaces
    }

    package func interface(named name: String) -> Interface? {
        interfaces.first { $0.name == name }
    }
}
