/// An object served at one path, or every object of a subtree: the
/// standard interfaces (Introspectable, Properties, Peer) bound once at
/// export, then its own, in declaration order.
final class ExportedObject {
    /// Its path; for a subtree, the prefix its objects are under.
    let path: ObjectPath
    let interfaces: [Interface]
    /// Who may call the object at a path: given the path, the sender and
    /// the interface called, the refusal, or nil to let the call through.
    /// Introspectable and Peer stay open to all.
    let access: ((_ path: ObjectPath, _ sender: String, _ interface: String) -> BusError?)?
    private(set) var allInterfaces: [Interface] = []

    init(path: ObjectPath, interfaces: [Interface],
         access: ((_ path: ObjectPath, _ sender: String, _ interface: String) -> BusError?)? = nil) {
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

/// The objects under one prefix, served by one declaration of their
/// interfaces (as sd-bus's fallback vtables and libdbus's fallback
/// objects): `find` says which paths below the prefix hold an object, and
/// each handler reads the object from the call's path.
struct ExportedSubtree {
    let object: ExportedObject
    /// Whether an object lives at a path below the prefix.
    let find: (ObjectPath) -> Bool
    /// The paths of the objects that live now, for introspection.
    let children: () -> [ObjectPath]

    /// Whether `path` is below the prefix and holds an object.
    func holds(_ path: ObjectPath) -> Bool {
        path.rawValue.hasPrefix(object.path.rawValue + "/") && find(path)
    }
}
