import MenuBusSupport
import MenuBusBundledProviders

/// The shortcut on GNOME: a custom keybinding of gnome-settings-daemon,
/// through GSettings (`gsettings`, so whatever backend the session uses,
/// dconf normally): the relocatable schema
/// `org.gnome.settings-daemon.plugins.media-keys.custom-keybinding` at a
/// path of MenuBus's own (`name`, `command`, `binding`), and that path in
/// the list `custom-keybindings` of `org.gnome.settings-daemon.plugins.media-keys`.
/// `disable` takes out exactly that path and those keys: the list is left
/// as it was before, in its order.
struct GnomeShortcut {
    static let schema = "org.gnome.settings-daemon.plugins.media-keys"
    static let listKey = "custom-keybindings"
    static let entrySchema = "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding"
    static let path = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/menubus-show-menu/"
    static var entry: String { entrySchema + ":" + path }

    let environment: [String: String]

    /// Where the shortcut stands: whether MenuBus's path is in the list,
    /// and the binding and command kept at it ("" when unset).
    struct State: Equatable {
        var listed: Bool
        var binding: String
        var command: String
    }

    /// Runs `gsettings ARGUMENTS` and gives what it printed; a failure says what gsettings said.
    @discardableResult
    func gsettings(_ arguments: [String]) throws -> String {
        let result: Subprocess.Result
        do {
            result = try Subprocess.run(["gsettings"] + arguments, environment: environment, input: [])
        } catch {
            throw CommandFailure("cannot run gsettings: \(error.description)")
        }
        guard result.status == 0 else {
            let said = String(decoding: result.errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            throw CommandFailure("gsettings \(arguments.prefix(2).joined(separator: " ")) failed (status \(result.status)): \(said)")
        }
        return String(decoding: result.output, as: UTF8.self)
    }

    /// Throws a clear failure unless GNOME's media-keys schemas are installed.
    func checkSchemas() throws {
        let schemas = (try? gsettings(["list-schemas"])) ?? ""
        let names = Set(schemas.split(separator: "\n").map(String.init))
        guard names.contains(Self.schema) else {
            throw CommandFailure("GNOME's keyboard shortcut settings (\(Self.schema)) are not installed; install gnome-settings-daemon (its schemas are in gnome-settings-daemon-common)")
        }
    }

    /// The paths of `custom-keybindings`, in order.
    func list() throws -> [String] {
        guard let paths = GVariantStrings.parse(try gsettings(["get", Self.schema, Self.listKey])) else {
            throw CommandFailure("gsettings gave \(Self.schema) \(Self.listKey) in a form menubus-cli does not read")
        }
        return paths
    }

    /// A string key of MenuBus's entry, or of another custom keybinding at `path`.
    func value(_ key: String, at path: String = GnomeShortcut.path) throws -> String {
        GVariantStrings.parseString(try gsettings(["get", Self.entrySchema + ":" + path, key])) ?? ""
    }

    func state() throws -> State {
        try checkSchemas()
        return State(listed: try list().contains(Self.path), binding: try value("binding"), command: try value("command"))
    }

    /// Sets the entry's name, command and binding, then adds its path to the
    /// list if it is not there. Returns whether anything changed, and the
    /// names of other custom keybindings bound to the same key.
    func enable(binding: String) throws -> (changed: Bool, clashes: [String]) {
        let before = try state()
        let paths = try list()
        var clashes: [String] = []
        for other in paths where other != Self.path && (try? value("binding", at: other)) == binding {
            clashes.append((try? value("name", at: other)).flatMap { $0.isEmpty ? nil : $0 } ?? other)
        }
        let wanted = State(listed: true, binding: binding, command: ShortcutIntegration.command)
        if before == wanted, (try? value("name")) == ShortcutIntegration.title { return (false, clashes) }
        try gsettings(["set", Self.entry, "name", GVariantStrings.quote(ShortcutIntegration.title)])
        try gsettings(["set", Self.entry, "command", GVariantStrings.quote(ShortcutIntegration.command)])
        try gsettings(["set", Self.entry, "binding", GVariantStrings.quote(binding)])
        if !paths.contains(Self.path) {
            try gsettings(["set", Self.schema, Self.listKey, GVariantStrings.list(paths + [Self.path])])
        }
        return (true, clashes)
    }

    /// Takes MenuBus's path out of the list (the others stay, in their
    /// order; an empty list goes back to its default) and resets the
    /// entry's keys. False when there was nothing of MenuBus's.
    func disable() throws -> Bool {
        let before = try state()
        let paths = try list()
        if paths.contains(Self.path) {
            let rest = paths.filter { $0 != Self.path }
            if rest.isEmpty {
                try gsettings(["reset", Self.schema, Self.listKey])
            } else {
                try gsettings(["set", Self.schema, Self.listKey, GVariantStrings.list(rest)])
            }
        }
        let name = try value("name")
        guard before.listed || !before.binding.isEmpty || !before.command.isEmpty || !name.isEmpty else { return false }
        for key in ["name", "command", "binding"] { try gsettings(["reset", Self.entry, key]) }
        return true
    }
}
