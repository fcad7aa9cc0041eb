import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// Titles as the desktop's menu protocols expect labels.
///
/// Both `com.canonical.dbusmenu` and GTK's menu models read an underscore
/// as the mnemonic marker ("_Copy" underlines the C); a MenuBus title is
/// plain text, so every underscore is doubled to show as itself.
enum MenuLabel {
    static func escaped(_ title: String?) -> String {
        guard let title else { return "" }
        guard title.utf8.contains(UInt8(ascii: "_")) else { return title }
        var result = ""
        result.reserveCapacity(title.utf8.count + 2)
        for character in title {
            if character == "_" { result.append("__") } else { result.append(character) }
        }
        return result
    }
}
