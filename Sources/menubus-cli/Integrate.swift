/// `menubus-cli integrate`: turns MenuBus on for a toolkit's unmodified apps
/// in the user's sessions, turns it off, or says where it stands. Needs no
/// daemon and never touches the bus.
enum Integrate {
    /// The toolkits MenuBus reaches without changing their apps. Only GTK 3
    /// so far (its module); Qt's platform theme comes as another case.
    enum Toolkit: String, CaseIterable {
        case gtk

        var name: String {
            switch self {
            case .gtk: "GTK 3"
            }
        }
    }

    static let command = CommandLineTool.Command(
        name: "integrate", summary: "turn MenuBus on or off for unmodified GTK 3 apps at login",
        usage: """
            Usage: menubus-cli integrate [gtk] --enable | --disable | --status [--json]

            Unmodified apps of a toolkit reach MenuBus through a module the toolkit
            loads. For GTK 3 that is the module 'menubus' (libmenubus.so in a GTK 3
            modules folder), which GTK loads when GTK_MODULES names it.

            --enable    writes $XDG_CONFIG_HOME/environment.d/60-menubus.conf
                        (~/.config/environment.d by default), which appends
                        menubus to any GTK_MODULES the session already has; the
                        systemd user manager reads it when the session starts
            --disable   removes that file again
            --status    says whether the file is there, whether the module is
                        installed (and where), and whether this session loads it
                        (the default when no action is given)

            Either change takes effect at the next login. A file of that name
            that menubus-cli did not write is never changed or removed: --enable
            and --disable refuse it. The toolkit may be left out: it is every
            toolkit MenuBus integrates with, so far only gtk. No daemon is needed.

            """,
        run: run)

    enum Action: String {
        case enable = "--enable", disable = "--disable", status = "--status"
    }

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        let actions = [Action.enable, .disable, .status].filter { arguments.remove($0.rawValue) }
        guard actions.count <= 1 else {
            throw UsageError("give one of --enable, --disable and --status, not \(actions.map(\.rawValue).joined(separator: " and "))")
        }
        var toolkits = Toolkit.allCases
        if arguments.peek() != nil {
            let word = try arguments.required("TOOLKIT")
            guard let toolkit = Toolkit(rawValue: word) else {
                throw UsageError("unknown toolkit '\(word)'; MenuBus integrates with \(Toolkit.allCases.map(\.rawValue).joined(separator: ", ")) so far")
            }
            toolkits = [toolkit]
        }
        try arguments.finish()
        switch actions.first ?? .status {
        case .enable:
            for toolkit in toolkits { try enable(toolkit) }
        case .disable:
            for toolkit in toolkits { try disable(toolkit) }
        case .status:
            let rows = try toolkits.map(status)
            Output.out(options.json ? "[" + rows.map(\.json).joined(separator: ", ") + "]\n" : rows.map(\.text).joined())
        }
        return 0
    }

    static func enable(_ toolkit: Toolkit) throws {
        switch toolkit {
        case .gtk:
            let gtk = GtkModuleIntegration()
            let (change, path) = try gtk.enable()
            switch change {
            case .unchanged: Output.out("\(toolkit.name): already enabled by \(path)\n")
            case .updated: Output.out("\(toolkit.name): enabled; updated \(path)\n")
            default: Output.out("\(toolkit.name): enabled; wrote \(path)\n")
            }
            if !gtk.inThisSession {
                Output.out("GTK 3 apps load the menubus module from the next login on; this session is unchanged.\n")
            }
            let module = gtk.installedModule()
            if let module, !module.folder.searched {
                Output.err("menubus-cli integrate: note: \(module.path) is in a folder GTK 3 reads only when GTK_PATH names \(GtkModuleIntegration.parent(module.folder.path)); until then GTK 3 apps print 'Failed to load module \"menubus\"'\n")
            } else if module == nil {
                Output.err("menubus-cli integrate: note: no \(GtkModuleIntegration.moduleFile) is installed where GTK 3 looks; until it is, GTK 3 apps print 'Failed to load module \"menubus\"'\n")
            }
        }
    }

    static func disable(_ toolkit: Toolkit) throws {
        switch toolkit {
        case .gtk:
            let gtk = GtkModuleIntegration()
            let (change, path) = try gtk.disable()
            if change == .removed {
                Output.out("\(toolkit.name): disabled; removed \(path)\n")
                if gtk.inThisSession { Output.out("Apps of this session keep the module until you log out.\n") }
            } else {
                Output.out("\(toolkit.name): not enabled (no \(path)); nothing to do\n")
            }
        }
    }

    /// One toolkit's state, as lines and as a JSON object.
    struct Status {
        let text: String
        let json: String
    }

    static func status(_ toolkit: Toolkit) throws -> Status {
        switch toolkit {
        case .gtk:
            let gtk = GtkModuleIntegration()
            let path = try gtk.snippetPath()
            let snippet = try gtk.snippet(at: path)
            let module = gtk.installedModule()
            let session = gtk.inThisSession
            let prefix = toolkit.name + ": "
            var text = ""
            switch snippet {
            case .ours: text += prefix + "enabled for new sessions by \(path)\n"
            case .absent: text += prefix + "not enabled (no \(path))\n"
            case .foreign: text += prefix + "not enabled by menubus-cli: \(path) is another's file, left as it is\n"
            }
            if let module, module.folder.searched {
                text += prefix + "module installed: \(module.path)\n"
            } else if let module {
                text += prefix + "module found at \(module.path), but GTK 3 reads that folder only when GTK_PATH names \(GtkModuleIntegration.parent(module.folder.path))\n"
            } else {
                let searched = gtk.moduleFolders().map(\.path).joined(separator: ", ")
                text += prefix + "module not installed (no \(GtkModuleIntegration.moduleFile) in \(searched))\n"
            }
            if session {
                text += prefix + "this session loads it (GTK_MODULES=\(gtk.environment["GTK_MODULES"] ?? ""))\n"
            } else {
                text += prefix + "this session does not load it (GTK_MODULES \(gtk.environment["GTK_MODULES"] == nil ? "is not set" : "does not name menubus"))\n"
            }
            text += "A change takes effect at the next login.\n"
            let state: String
            switch snippet {
            case .ours: state = "enabled"
            case .absent: state = "absent"
            case .foreign: state = "foreign"
            }
            let fields = [
                "\"toolkit\": \(MenuJSON.quote(toolkit.rawValue))",
                "\"enabled\": \(state == "enabled")",
                "\"snippet\": \(MenuJSON.quote(path))",
                "\"snippet-state\": \(MenuJSON.quote(state))",
                "\"module\": \(module.map { MenuJSON.quote($0.path) } ?? "null")",
                "\"module-loadable\": \(module?.folder.searched ?? false)",
                "\"this-session\": \(session)",
            ]
            return Status(text: text, json: "{" + fields.joined(separator: ", ") + "}")
        }
    }
}
