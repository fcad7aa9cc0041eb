import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// One named value of an exported item: a `com.canonical.dbusmenu` item
/// property or an `org.gtk.Menus` item attribute. Kept as an ordered list
/// (not a dictionary) so replies are the same bytes for the same menu.
package struct ExportProperty: Hashable {
    package let name: String
    package let value: DBusValue

    init(_ name: String, _ value: DBusValue) {
        self.name = name
        self.value = value
    }
}

extension [ExportProperty] {
    /// The properties as an `a{sv}`; with `names` non-empty, only those.
    package func dictionary(only names: Set<String> = []) -> DBusValue {
        var entries: [DBusValue] = []
        entries.reserveCapacity(count)
        for property in self where names.isEmpty || names.contains(property.name) {
            entries.append(.dictEntry(.string(property.name), .variant(property.value)))
        }
        return .array("{sv}", entries)
    }

    package func value(named name: String) -> DBusValue? {
        first { $0.name == name }?.value
    }
}
