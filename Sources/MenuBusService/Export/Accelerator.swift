import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// A keyboard shortcut in GTK accelerator syntax (`<Control><Shift>z`),
/// the form `MenuElement.shortcut` carries, converted for other protocols.
struct Accelerator: Equatable {
    /// Modifier names as `com.canonical.dbusmenu` spells them, in the order written.
    var modifiers: [String]
    /// The key's name as written (`c`, `Delete`, `F2`, `plus`).
    var key: String

    init(modifiers: [String], key: String) {
        self.modifiers = modifiers
        self.key = key
    }

    /// Parses `<Mod>…key`; nil for a modifier dbusmenu cannot express
    /// (`<Hyper>`, `<Meta>`), an unknown one, or a missing key.
    init?(gtk text: String) {
        var modifiers: [String] = []
        var rest = Substring(text)
        while rest.first == "<" {
            guard let close = rest.firstIndex(of: ">") else { return nil }
            let name = rest[rest.index(after: rest.startIndex)..<close].lowercased()
            guard let modifier = Accelerator.dbusmenuModifier(name) else { return nil }
            if !modifiers.contains(modifier) { modifiers.append(modifier) }
            rest = rest[rest.index(after: close)...]
        }
        let key = rest.trimmingSpaces()
        // Characters, not substrings: searching for a string would go
        // through Foundation's much slower `range(of:)`.
        guard !key.isEmpty, !key.contains("<" as Character), !key.contains(">" as Character) else { return nil }
        self.modifiers = modifiers
        self.key = String(key)
    }

    /// The `shortcut` property of dbusmenu: one key combination, `aas`.
    var dbusmenuValue: DBusValue {
        .array("as", [.array("s", (modifiers + [key]).map(DBusValue.string))])
    }

    private static func dbusmenuModifier(_ name: String) -> String? {
        switch name {
        case "control", "ctrl", "ctl", "primary": "Control"
        case "shift", "shft": "Shift"
        case "alt", "mod1": "Alt"
        case "super": "Super"
        default: nil
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while result.first == " " { result = result.dropFirst() }
        while result.last == " " { result = result.dropLast() }
        return result
    }
}
