#if canImport(Glibc)
import Glibc
#endif
import MenuBusSupport
import MenuBusBundledProviders

/// The shortcut on KDE Plasma: a `.desktop` file of MenuBus's in
/// `$XDG_DATA_HOME/applications` whose `X-KDE-Shortcuts` kglobalaccel
/// offers as the launch shortcut, and, where `kwriteconfig5` or
/// `kwriteconfig6` is installed, that shortcut written into
/// `kglobalshortcutsrc` too (Plasma 5: the group named after the file;
/// Plasma 6: that group under `services`). `disable` removes the file and
/// deletes exactly those keys. Only a file carrying `marker` is changed or
/// removed. kglobalaccel reads them when the session starts.
struct KdeShortcut {
    static let fileName = "menubus-show-menu.desktop"
    static let marker = "# Written by 'menubus-cli integrate shortcut --enable'; removed by --disable."
    static let maxBytes = 64 << 10

    let environment: [String: String]

    /// `$XDG_DATA_HOME/applications/menubus-show-menu.desktop` (`~/.local/share` by default).
    func path() throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/applications/" + Self.fileName }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw CommandFailure("neither XDG_DATA_HOME nor HOME names a folder; cannot tell where applications/ is")
        }
        return home + "/.local/share/applications/" + Self.fileName
    }

    /// The desktop file for `shortcut` (Qt's spelling, `Meta+.`).
    static func text(shortcut: String) -> String {
        """
        [Desktop Entry]
        \(marker)
        Type=Application
        Name=\(ShortcutIntegration.title)
        Exec=\(ShortcutIntegration.command)
        NoDisplay=true
        X-KDE-Shortcuts=\(shortcut)

        """
    }

    /// The file's state: absent, ours (with its shortcut) or another's.
    enum State: Equatable {
        case absent
        case ours(shortcut: String)
        case foreign
    }

    func state() throws -> State {
        let path = try path()
        let bytes: [UInt8]?
        do {
            bytes = try Files.contents(path, maxBytes: Self.maxBytes)
        } catch {
            return .foreign
        }
        guard let bytes else { return .absent }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.contains(where: { $0 == Self.marker }) else { return .foreign }
        let shortcut = lines.first { $0.hasPrefix("X-KDE-Shortcuts=") }.map { String($0.dropFirst("X-KDE-Shortcuts=".count)) }
        return .ours(shortcut: shortcut ?? "")
    }

    /// The Plasma version the keys are written for, and its `kwriteconfig`
    /// (nil when none is installed): `KDE_SESSION_VERSION`, else the newest found.
    func configTool() -> (version: Int, path: String)? {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ version: Int) -> (Int, String)? {
            folders.lazy.map { $0 + "/kwriteconfig\(version)" }.first { access($0, X_OK) == 0 }.map { (version, $0) }
        }
        if let session = environment["KDE_SESSION_VERSION"].flatMap(Int.init), let tool = find(session) { return tool }
        return find(6) ?? find(5)
    }

    /// The kglobalshortcutsrc group arguments for `version`.
    private static func groups(_ version: Int) -> [String] {
        version >= 6 ? ["--group", "services", "--group", fileName] : ["--group", fileName]
    }

    private func write(_ tool: (version: Int, path: String), _ arguments: [String]) throws {
        let result: Subprocess.Result
        do {
            result = try Subprocess.run([tool.path, "--file", "kglobalshortcutsrc"] + Self.groups(tool.version) + arguments,
                                        environment: environment, input: [])
        } catch {
            throw CommandFailure("cannot run \(tool.path): \(error.description)")
        }
        guard result.status == 0 else {
            throw CommandFailure("\(tool.path) failed (status \(result.status)): \(String(decoding: result.errors, as: UTF8.self))")
        }
    }

    /// Writes the file (refusing another's) and the kglobalshortcutsrc keys;
    /// false when the file was there as it would be written.
    func enable(shortcut: String) throws -> Bool {
        let path = try path()
        let before = try state()
        if before == .foreign {
            throw CommandFailure("\(path) was not written by menubus-cli (it lacks the line \"\(Self.marker)\"); it is left as it is")
        }
        if let tool = configTool() {
            if tool.version >= 6 {
                try write(tool, ["--key", "_launch", shortcut])
            } else {
                try write(tool, ["--key", "_launch", "\(shortcut),none,\(ShortcutIntegration.title)"])
                try write(tool, ["--key", "_k_friendly_name", ShortcutIntegration.title])
            }
        }
        guard before != .ours(shortcut: shortcut) else { return false }
        do {
            try Files.makeDirectories(Files.parent(of: path))
            try Files.writeAtomically(Array(Self.text(shortcut: shortcut).utf8), to: path)
        } catch {
            throw CommandFailure("cannot write \(error)")
        }
        return true
    }

    /// Removes the file if it is ours and deletes the keys; false when there was no file of ours.
    func disable() throws -> Bool {
        let path = try path()
        switch try state() {
        case .foreign:
            throw CommandFailure("\(path) was not written by menubus-cli (it lacks the line \"\(Self.marker)\"); it is left as it is")
        case .absent:
            return false
        case .ours:
            if let tool = configTool() {
                for key in tool.version >= 6 ? ["_launch"] : ["_launch", "_k_friendly_name"] {
                    try write(tool, ["--delete", "--key", key])
                }
            }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw CommandFailure("cannot remove \(Files.FileError(path: path, code: errno))")
            }
            return true
        }
    }
}
