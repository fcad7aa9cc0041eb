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
    /// (`<Hyper>`, `<Meta>`), an unknown one, or a missing key. Read as
    /// UTF-8 bytes: every mapping of a menu parses each item's shortcut,
    /// and the syntax is ASCII (a modifier name of other bytes is unknown).
    init?(gtk text: String) {
        var text = text
        guard let (modifiers, key) = text.withUTF8({ bytes -> ([String], String)? in
            var modifiers: [String] = []
            var index = 0
            while index < bytes.count, bytes[index] == UInt8(ascii: "<") {
                guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                guard let modifier = Accelerator.dbusmenuModifier(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<close]))
                else { return nil }
                if !modifiers.contains(modifier) { modifiers.append(modifier) }
                index = close + 1
            }
            var end = bytes.count
            while index < end, bytes[index] == UInt8(ascii: " ") { index += 1 }
            while end > index, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
            let key = UnsafeBufferPointer(rebasing: bytes[index..<end])
            guard !key.isEmpty, !key.contains(UInt8(ascii: "<")), !key.contains(UInt8(ascii: ">")) else { return nil }
            return (modifiers, String(decoding: key, as: UTF8.self))
        }) else { return nil }
        self.modifiers = modifiers
        self.key = key
    }

    /// The `shortcut` property of dbusmenu: one key combination, `aas`.
    var dbusmenuValue: DBusValue {
        .array("as", [.array("s", (modifiers + [key]).map(DBusValue.string))])
    }

    /// The dbusmenu name of the modifier written `name` (any ASCII case).
    private static func dbusmenuModifier(_ name: UnsafeBufferPointer<UInt8>) -> String? {
        func named(_ candidate: StaticString) -> Bool {
            guard candidate.utf8CodeUnitCount == name.count else { return false }
            let expected = UnsafeBufferPointer(start: candidate.utf8Start, count: candidate.utf8CodeUnitCount)
            // The candidates are lower-case ASCII letters and digits.
            return zip(name, expected).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
        }
        if named("control") || named("ctrl") || named("ctl") || named("primary") { return "Control" }
        if named("shift") || named("shft") { return "Shift" }
        if named("alt") || named("mod1") { return "Alt" }
        if named("super") { return "Super" }
        return nil
    }
}
