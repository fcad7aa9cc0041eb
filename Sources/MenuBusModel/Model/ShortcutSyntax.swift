/// GTK's accelerator grammar, as `gtk_accelerator_parse` (GTK 3) accepts
/// it: any number of modifiers in angle brackets, case-insensitive
/// (`<Control>` `<Ctrl>` `<Ctl>` `<Primary>` `<Shift>` `<Shft>` `<Alt>`
/// `<Mod1>`…`<Mod5>` `<Meta>` `<Super>` `<Hyper>` `<Release>`), then
/// exactly one key name GDK knows (`q`, `F5`, `Delete`, `plus`,
/// `XF86AudioPlay`), case-sensitive, nothing around it. "Ctrl+Q", a
/// modifier alone, an unknown modifier or key, and spaces are refused.
package enum ShortcutSyntax {
    static let modifierNames: Set<String> = [
        "control", "ctrl", "ctl", "primary", "shift", "shft", "alt", "meta", "super", "hyper", "release",
        "mod1", "mod2", "mod3", "mod4", "mod5",
    ]

    /// Every key name of `keyNameList`, built once.
    static let keyNames: Set<Substring> = Set(keyNameList.split(whereSeparator: { $0 == " " || $0 == "\n" }))

    /// True when GTK would parse `text` as an accelerator.
    package static func isValid(_ text: String) -> Bool {
        var rest = Substring(text)
        while rest.first == "<" {
            guard let close = rest.firstIndex(of: ">") else { return false }
            let name = rest[rest.index(after: rest.startIndex)..<close].lowercased()
            guard modifierNames.contains(name) else { return false }
            rest = rest[rest.index(after: close)...]
        }
        return keyNames.contains(rest)
    }

    /// One spelling of an accelerator, to compare two: its modifiers by
    /// their canonical names (`<Ctrl>` and `<Primary>` are `<Control>`,
    /// `<Mod1>` is `<Alt>`), sorted, then its key, a letter in lower case
    /// (GTK takes `<Control>C` as `<Control>c`); nil when it is not one.
    package static func canonical(_ text: String) -> String? {
        guard isValid(text) else { return nil }
        var modifiers: Set<String> = []
        var rest = Substring(text)
        while rest.first == "<", let close = rest.firstIndex(of: ">") {
            let name = rest[rest.index(after: rest.startIndex)..<close].lowercased()
            switch name {
            case "ctrl", "ctl", "primary": modifiers.insert("control")
            case "shft": modifiers.insert("shift")
            case "mod1": modifiers.insert("alt")
            default: modifiers.insert(name)
            }
            rest = rest[rest.index(after: close)...]
        }
        let key = rest.count == 1 ? rest.lowercased() : String(rest)
        return modifiers.sorted().map { "<\($0)>" }.joined() + key
    }

    /// Throws `InvalidArgs` naming `field` unless `text` is an accelerator.
    static func check(_ text: String, field: @autoclosure () -> String) throws(ModelError) {
        guard !isValid(text) else { return }
        throw .invalid(field(), "\(ModelError.quoted(text)) is not a GTK accelerator; write modifiers in angle brackets and a key name, as in '<Control>q' or '<Shift><Control>z'")
    }
}
