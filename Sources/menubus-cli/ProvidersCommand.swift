import MenuBusProviders
import MenuBus
import MenuBusModel

/// `menubus-cli providers`: the providers menus may offer, and the user's
/// choices about them (`$XDG_CONFIG_HOME/menubus/providers.conf`).
enum ProvidersCommand {
    static let command = CommandLineTool.Command(
        name: "providers", summary: "list providers; switch them on or off, choose one for a role",
        usage: """
            Usage: menubus-cli providers [--enable ID] [--disable ID] [--prefer ROLE ID] [--json]
                   menubus-cli providers --check [--json]

            Without --enable, --disable or --prefer, lists every provider menubusd
            knows: those running (registered) and those declared by a key file in
            $XDG_DATA_HOME/menubus/providers or $XDG_DATA_DIRS/menubus/providers,
            which start on demand. Each line shows the id, the title, the role,
            the shortcut (Shortcut= of its key file), whether it runs and whether
            it is enabled. With any of them (they may be combined, each once),
            records those choices instead of listing.

            --check reads the key files and, when menubusd runs, its providers and
            the apps' own items, and prints one finding a line ('severity
            subject: message'): a key file that cannot be read (file and line), a
            shortcut that is an edit command's key (<Control>c...), one that two
            providers share, and one a running app's own item has (there the key
            stays the app's). Exits 3 when it found any, 0 when none. With --json,
            an array of {"severity", "subject", "message"}.

            ID must be a provider that is declared, registered with the running
            menubusd, or already named in the choices; any other is refused.

            The choices are written to $XDG_CONFIG_HOME/menubus/providers.conf;
            menubusd watches that file and updates open menus at once. With
            --json a choice prints {"file", "enable", "disable", "prefer"}
            (the options given), the list an array of {"id", "title", "role",
            "shortcut", "running", "declared", "enabled", "bus-name"}.

            """,
        run: run)

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        if arguments.remove("--check") {
            try arguments.finish()
            return try ProvidersCheck.run(options)
        }
        let enable = try arguments.option("--enable")
        let disable = try arguments.option("--disable")
        var prefer: (role: String, id: String)?
        if arguments.remove("--prefer") {
            prefer = (try arguments.required("ROLE"), try arguments.required("ID"))
        }
        try arguments.finish()
        guard enable != nil || disable != nil || prefer != nil else { return try list(options) }
        let path = ProviderPolicy.defaultPath()
        var policy: ProviderPolicy
        do {
            policy = try ProviderPolicy.load(path: path)
        } catch {
            throw CommandFailure("\(path): \(error); fix or remove the file")
        }
        let known = knownIds(policy, options)
        do {
            if let enable { try policy.enable(enable) }
            if let disable { try policy.disable(disable) }
            if let prefer { try policy.prefer(role: prefer.role, id: prefer.id) }
        } catch {
            throw UsageError("\(error)")
        }
        for id in [enable, disable, prefer?.id].compactMap({ $0 }) where !known.contains(id) {
            throw UsageError("no provider '\(id)' is declared or registered; 'menubus-cli providers' lists them")
        }
        do {
            try policy.save(path: path)
        } catch {
            throw CommandFailure("cannot write \(path): \(error)")
        }
        if options.json {
            var fields = ["\"file\": \(MenuJSON.quote(path))"]
            if let enable { fields.append("\"enable\": \(MenuJSON.quote(enable))") }
            if let disable { fields.append("\"disable\": \(MenuJSON.quote(disable))") }
            if let prefer { fields.append("\"prefer\": {\"role\": \(MenuJSON.quote(prefer.role)), \"id\": \(MenuJSON.quote(prefer.id))}") }
            Output.out("{" + fields.joined(separator: ", ") + "}\n")
            return 0
        }
        if let enable { Output.out("enabled \(enable)\n") }
        if let disable { Output.out("disabled \(disable)\n") }
        if let prefer { Output.out("\(prefer.id) serves \(prefer.role)\n") }
        return 0
    }

    /// The ids a choice may name: those declared by a key file, those
    /// registered with a running menubusd (never started to ask), and those
    /// the choices already name, so a vanished provider can still be enabled.
    static func knownIds(_ policy: ProviderPolicy, _ options: CommandLineTool.Options) -> Set<String> {
        let catalog = ProviderCatalog()
        catalog.reload()
        var ids = Set(catalog.declarations.map(\.info.id))
        ids.formUnion(policy.disabled + policy.order + policy.preferred.values)
        if let client = try? CommandLineTool.connectToRunningDaemon(options), let running = try? client.listProviders() {
            ids.formUnion(running.map(\.id))
        }
        return ids
    }

    static func list(_ options: CommandLineTool.Options) throws -> Int32 {
        let client = try CommandLineTool.connect(options)
        let providers = try client.listProviders()
        func string(_ properties: [String: DBusValue], _ key: String) -> String {
            if case .string(let value)? = properties[key]?.unwrapped { return value }
            return ""
        }
        func flag(_ properties: [String: DBusValue], _ key: String) -> Bool {
            properties[key]?.unwrapped == .boolean(true)
        }
        if options.json {
            let rows = providers.map { provider in
                let p = provider.properties
                return "{\"id\": \(MenuJSON.quote(provider.id)), \"title\": \(MenuJSON.quote(string(p, "title"))), \"role\": \(MenuJSON.quote(string(p, "role"))), \"shortcut\": \(MenuJSON.quote(string(p, "shortcut"))), \"running\": \(flag(p, "running")), \"declared\": \(flag(p, "declared")), \"enabled\": \(flag(p, "enabled")), \"bus-name\": \(MenuJSON.quote(string(p, "bus-name")))}"
            }
            Output.out("[" + rows.joined(separator: ", ") + "]\n")
            return 0
        }
        if providers.isEmpty { Output.out("no providers registered or declared\n") }
        for provider in providers {
            let p = provider.properties
            let role = string(p, "role")
            let state = flag(p, "running") ? "running" : "starts on demand"
            let enabled = flag(p, "enabled") ? "" : Output.styled(", disabled", .bold)
            let shortcut = string(p, "shortcut")
            Output.out("\(provider.id.padding(42))\(string(p, "title"))\(role.isEmpty ? "" : " (\(role))")\(shortcut.isEmpty ? "" : "  \(shortcut)")  [\(state)\(enabled)]\n")
        }
        return 0
    }
}
