#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport

/// GTK 4's input-method module `menubus` (`libim-menubus.so` in a GTK 4
/// immodules folder) turned on for the user's GTK 4 apps by GTK 4's own
/// setting `gtk-im-module` in `$XDG_CONFIG_HOME/gtk-4.0/settings.ini`, a file
/// only GTK 4 reads: GTK 3 apps, which also read `GTK_IM_MODULE`, are left
/// as they are. The value is `menubus`, then the IM the setting named before
/// (the user's file, else the system's), so GTK 4 falls back to it where the
/// module is not installed, and the module wraps it.
///
/// Two lines of menubus-cli's in the `[Settings]` group: a comment that
/// says what was there (`marker`), then the setting. `--disable` puts back
/// exactly what the comment records and nothing else of the file changes.
///
/// No bus, no daemon: the environment and the file system only.
struct Gtk4ImIntegration {
    static let imName = "menubus"
    static let moduleFile = "libim-menubus.so"
    static let key = "gtk-im-module"
    static let group = "[Settings]"
    /// The start of menubus-cli's comment; what follows says what to put back.
    static let marker = "# menubus-cli integrate gtk:"
    static let replaced = " was "
    static let added = " added the line"
    static let addedGroup = " added the line and [Settings]"
    static let wroteFile = " wrote the file"
    /// Said after `addedGroup` when the file's last line had no newline, which it then got.
    static let noNewline = ", ending the last line"
    static let maxBytes = 256 << 10

    let environment: [String: String]

    init(environment: [String: String] = Files.environment()) {
        self.environment = environment
    }

    private var configHome: String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.config" }
        return nil
    }

    func path() throws -> String {
        guard let configHome else {
            throw CommandFailure("neither XDG_CONFIG_HOME nor HOME names a folder; cannot tell where GTK 4's settings.ini is")
        }
        return configHome + "/gtk-4.0/settings.ini"
    }

    // MARK: The file as text

    /// The value of `key` in the `[Settings]` group of an INI text (the last
    /// one, as GLib's key files take it), and its line's index.
    static func setting(in lines: [Substring]) -> (value: String, line: Int)? {
        var inGroup = false
        var found: (String, Int)?
        for (index, line) in lines.enumerated() {
            let trimmed = line.strippingBlanks
            if trimmed.hasPrefix("[") {
                inGroup = trimmed == group
            } else if inGroup, let equals = trimmed.firstIndex(of: "="),
                      trimmed[..<equals].strippingBlanks == key {
                found = (trimmed[trimmed.index(after: equals)...].strippingBlanks, index)
            }
        }
        return found
    }

    /// The line of menubus-cli's comment, if the text has one.
    static func markerLine(in lines: [Substring]) -> Int? {
        lines.firstIndex { $0.hasPrefix(marker) }
    }

    /// The setting's value with MenuBus first and `previous` (MenuBus left out) after it.
    static func value(wrapping previous: String?) -> String {
        let rest = (previous ?? "").split(separator: ":").filter { $0 != imName }
        return ([imName] + rest.map(String.init)).joined(separator: ":")
    }

    /// `text` (nil: no file) with MenuBus's lines; `fallback` is the system's
    /// setting, wrapped when the user's file has none.
    static func enabled(_ text: String?, fallback: String?) -> String {
        var lines = (text ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        if let found = setting(in: lines) {
            let original = lines[found.line]
            lines.replaceSubrange(found.line...found.line, with: [
                Substring(marker + replaced + original), Substring("\(key)=\(value(wrapping: found.value))")])
        } else if let header = lines.firstIndex(where: { $0.strippingBlanks == group }) {
            lines.insert(contentsOf: [Substring(marker + added), Substring("\(key)=\(value(wrapping: fallback))")], at: header + 1)
        } else {
            let unended = text.map { !$0.isEmpty && !$0.hasSuffix("\n") } ?? false
            lines += [Substring(group), Substring(marker + (text == nil ? wroteFile : addedGroup + (unended ? noNewline : ""))),
                      Substring("\(key)=\(value(wrapping: fallback))")]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` with MenuBus's lines taken out and what they replaced put
    /// back; nil when menubus-cli wrote the whole file and nothing else is
    /// in it now.
    static func disabled(_ text: String) -> String? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let at = markerLine(in: lines) else { return text }
        let note = lines[at].dropFirst(marker.count)
        // The setting follows the comment (unless someone took it out).
        let ours = at + 1 < lines.count && setting(in: [Substring(group), lines[at + 1]]) != nil ? 2 : 1
        if note.hasPrefix(replaced) {
            lines.replaceSubrange(at..<(at + ours), with: [note.dropFirst(replaced.count)])
        } else {
            lines.removeSubrange(at..<(at + ours))
            let groupOnly = note.hasPrefix(addedGroup) || note.hasPrefix(wroteFile)
            // The [Settings] line menubus-cli added goes too, when its group is empty.
            if groupOnly, at > 0, lines[at - 1].strippingBlanks == group,
               at == lines.count || lines[at].hasPrefix("[") || (at == lines.count - 1 && lines[at].isEmpty) {
                lines.remove(at: at - 1)
            }
            if note.hasPrefix(wroteFile), lines.allSatisfy({ $0.isEmpty }) { return nil }
            if note.hasSuffix(noNewline), lines.last == "" { lines.removeLast() }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: The file on disk

    private func read(_ path: String) throws -> String? {
        do {
            return try Files.contents(path, maxBytes: Self.maxBytes).map { String(decoding: $0, as: UTF8.self) }
        } catch {
            throw CommandFailure("cannot read \(error)")
        }
    }

    /// The setting as the user's file has it, and whether menubus-cli's lines are there.
    func state() throws -> (path: String, ours: Bool, value: String?) {
        let path = try path()
        let lines = (try read(path) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        return (path, Self.markerLine(in: lines) != nil, Self.setting(in: lines)?.value)
    }

    /// The setting in the system's settings.ini files, as GTK 4 reads them
    /// before the user's (a later file wins).
    func systemSetting() -> String? {
        let configDirs = (environment["XDG_CONFIG_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/xdg")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        let files = ["/usr/share/gtk-4.0/settings.ini", "/etc/gtk-4.0/settings.ini"]
            + configDirs.reversed().map { $0 + "/gtk-4.0/settings.ini" }
        var value: String?
        for file in files {
            guard let bytes = try? Files.contents(file, maxBytes: Self.maxBytes) else { continue }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if let found = Self.setting(in: lines) { value = found.value }
        }
        return value
    }

    enum Change { case wrote, unchanged, restored }

    func enable() throws -> (Change, path: String, value: String) {
        let path = try path()
        let text = try read(path)
        let lines = (text ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        if Self.markerLine(in: lines) != nil { return (.unchanged, path, Self.setting(in: lines)?.value ?? "") }
        let new = Self.enabled(text, fallback: systemSetting())
        try write(new, to: path)
        let value = Self.setting(in: new.split(separator: "\n", omittingEmptySubsequences: false))?.value ?? Self.imName
        return (.wrote, path, value)
    }

    func disable() throws -> (Change, path: String) {
        let path = try path()
        guard let text = try read(path),
              Self.markerLine(in: text.split(separator: "\n", omittingEmptySubsequences: false)) != nil else {
            return (.unchanged, path)
        }
        if let restored = Self.disabled(text) {
            try write(restored, to: path)
        } else if unlink(path) != 0 && errno != ENOENT {
            throw CommandFailure("cannot remove \(Files.FileError(path: path, code: errno))")
        }
        return (.restored, path)
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try Files.makeDirectories(Files.parent(of: path))
            try Files.writeAtomically(Array(text.utf8), to: path)
        } catch {
            throw CommandFailure("cannot write \(error)")
        }
    }

    // MARK: The module and the session

    /// Where GTK 4 looks for IM modules, in its order: each `GTK_PATH`
    /// entry, then `$GTK_EXE_PREFIX/lib/gtk-4.0` or the system's GTK 4
    /// folder; in each, `4.0.0/immodules` before `immodules`.
    func moduleFolders() -> [String] {
        var bases = (environment["GTK_PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        if let prefix = environment["GTK_EXE_PREFIX"], prefix.hasPrefix("/") {
            bases.append(prefix + "/lib/gtk-4.0")
        } else {
            bases += ["/usr/lib/\(Multiarch.triplet)/gtk-4.0", "/usr/lib64/gtk-4.0", "/usr/lib/gtk-4.0"]
        }
        var folders: [String] = []
        for base in bases {
            for folder in [base + "/4.0.0/immodules", base + "/immodules"] where !folders.contains(folder) {
                folders.append(folder)
            }
        }
        return folders
    }

    func installedModule() -> String? {
        moduleFolders().map { $0 + "/" + Self.moduleFile }.first { Files.regularFileSize($0) != nil }
    }

    /// `GTK_IM_MODULE` of this session, which GTK 4 reads before its setting.
    var sessionVariable: String? {
        environment["GTK_IM_MODULE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What keeps the setting from reaching GTK 4 apps in this session, if anything.
    var overriddenBy: String? {
        if let variable = sessionVariable, !variable.split(separator: ":").contains(where: { $0 == Self.imName }) {
            return "GTK_IM_MODULE=\(variable) in the environment, which GTK 4 reads before its setting; GTK_IM_MODULE=\(Self.value(wrapping: variable)) would put MenuBus in front of it"
        }
        if sessionVariable == nil, (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").contains("GNOME") {
            return "GNOME's settings daemon, whose gtk-im-module (org.gnome.desktop.interface) GTK 4 reads before settings.ini; GTK_IM_MODULE=menubus in the session's environment comes before both"
        }
        return nil
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end (GLib's key files strip them).
    fileprivate var strippingBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
