/// `menubus-cli integrate`: turns MenuBus on for a toolkit's unmodified apps
/// in the user's sessions, turns it off, or says where it stands. Needs no
/// daemon and never touches the bus.
enum Integrate {
    /// The toolkits MenuBus reaches without changing their apps: GTK 3
    /// (its module) and GTK 4 (an IM module that wraps another), both as
    /// `gtk`, and Qt 5 and 6 (a platform theme that wraps another).
    enum Toolkit: String, CaseIterable {
        case gtk, qt

        var name: String {
            switch self {
            case .gtk: "GTK 3"
            case .qt: "Qt"
            }
        }
    }

    static let command = CommandLineTool.Command(
        name: "integrate", summary: "turn MenuBus on or off for unmodified GTK 3, GTK 4 and Qt apps at login",
        usage: """
            Usage: menubus-cli integrate [gtk|qt] --enable | --disable | --status [--json]

            Unmodified apps of a toolkit reach MenuBus through a plugin the toolkit
            loads. For GTK 3 that is the module 'menubus' (libmenubus.so in a GTK 3
            modules folder), which GTK loads when GTK_MODULES names it. For GTK 4
            it is the input-method module 'menubus' (libim-menubus.so in GTK 4's
            immodules folder), which GTK 4 uses when GTK_IM_MODULE or its setting
            gtk-im-module names it, and which wraps the input method named after
            it there (else GTK's own choice). For Qt 5
            and 6 it is the platform theme 'menubus' (platformthemes/libmenubus.so),
            which Qt loads when QT_QPA_PLATFORMTHEME names it, and which wraps the
            theme named by MENUBUS_QT_WRAPPED_THEME (else Qt's own choice).

            --enable    gtk: writes $XDG_CONFIG_HOME/environment.d/60-menubus.conf
                        (~/.config/environment.d by default), which appends
                        menubus to any GTK_MODULES the session already has,
                        and sets gtk-im-module=menubus:PREVIOUS in
                        $XDG_CONFIG_HOME/gtk-4.0/settings.ini, a file only
                        GTK 4 reads, with a comment that records the line it
                        replaced;
                        qt: writes 90-menubus-qt.conf there, which records the
                        session's QT_QPA_PLATFORMTHEME as the theme to wrap, then
                        sets QT_QPA_PLATFORMTHEME=menubus; the systemd user
                        manager reads them when the session starts
            --disable   removes that file again, which puts back what was there
                        (gtk: and puts GTK 4's gtk-im-module line back as it was)
            --status    says whether the file is there, whether the plugin is
                        installed (and where), and whether this session loads it
                        (the default when no action is given)

            Either change takes effect at the next login (GTK 4's setting: when an
            app starts). GTK_IM_MODULE in the session's environment, and GNOME's
            own gtk-im-module, come before GTK 4's settings.ini: --status says so.
            A file of that name
            that menubus-cli did not write is never changed or removed: --enable
            and --disable refuse it. The toolkit may be left out: it is every
            toolkit MenuBus integrates with (gtk, qt). No daemon is needed. With
            --json each action prints the state it leaves, as --status does: an
            array of one object a toolkit (docs/cli-json.schema.json).

            integrate shortcut [--enable [--key ACCEL] | --disable | --status]
            binds a key, <Super>period unless --key names another in GTK's
            accelerator syntax, to 'menubus-cli show-menu', which has the focused
            app show MenuBus's menu at its caret. On GNOME it is a custom
            keybinding (GSettings: MenuBus's entry of the relocatable schema
            org.gnome.settings-daemon.plugins.media-keys.custom-keybinding,
            added to the list custom-keybindings), at once; on KDE Plasma a
            launch shortcut of kglobalaccel (~/.local/share/applications/
            menubus-show-menu.desktop with X-KDE-Shortcuts, and kglobalshortcutsrc
            through kwriteconfig5 or 6 when installed), from the next login.
            --disable removes exactly that, leaving the other keybindings and
            their list as they were. --json prints {"desktop", "enabled", "key",
            "command", "where"}.

            integrate edit-bar [--enable | --disable] [--app NAME] | --status
            turns the edit bar on or off: a compact bar of the edit commands
            and providers that the GTK 3 module and the Qt theme show over a
            selection made with the pointer, as iOS does. Off by default.
            --enable turns it on for every app, or with --app for the program
            NAME (as [Exclude] Apps= names programs); --disable turns it off,
            or with --app for that program only. It writes the [Edit Bar]
            group of $XDG_CONFIG_HOME/menubus/integration.conf (Enabled=,
            Apps=), leaving the file's other lines as they were; apps read it
            when they start. --json prints {"every-app", "apps", "file"}.

            """,
        run: run)

    enum Action: String {
        case enable = "--enable", disable = "--disable", status = "--status"

        /// The one action given, taken out of `arguments`; nil when none.
        static func take(from arguments: inout Arguments) throws -> Action? {
            let actions = [Action.enable, .disable, .status].filter { arguments.remove($0.rawValue) }
            guard actions.count <= 1 else {
                throw UsageError("give one of --enable, --disable and --status, not \(actions.map(\.rawValue).joined(separator: " and "))")
            }
            return actions.first
        }
    }

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        if arguments.contains(ShortcutIntegration.word) { return try ShortcutIntegration.run(&arguments, options) }
        if arguments.contains(EditBarIntegration.word) { return try EditBarIntegration.run(&arguments, options) }
        let given = try Action.take(from: &arguments)
        var toolkits = Toolkit.allCases
        if arguments.peek() != nil {
            let word = try arguments.required("TOOLKIT")
            guard let toolkit = Toolkit(rawValue: word) else {
                throw UsageError("unknown toolkit '\(word)'; MenuBus integrates with \(Toolkit.allCases.map(\.rawValue).joined(separator: ", ")) so far")
            }
            toolkits = [toolkit]
        }
        try arguments.finish()
        let action = given ?? .status
        switch action {
        case .enable:
            for toolkit in toolkits { try enable(toolkit, quiet: options.json) }
        case .disable:
            for toolkit in toolkits { try disable(toolkit, quiet: options.json) }
        case .status:
            break
        }
        // With --json a change answers as --status does, with the state it left.
        if action == .status || options.json {
            let rows = try toolkits.map(status)
            Output.out(options.json ? "[" + rows.map(\.json).joined(separator: ", ") + "]\n" : rows.map(\.text).joined())
        }
        return 0
    }

    /// `quiet`: the lines that say what changed are left out (--json prints the state instead).
    static func enable(_ toolkit: Toolkit, quiet: Bool = false) throws {
        let say: (String) -> Void = { text in if !quiet { Output.out(text) } }
        switch toolkit {
        case .gtk:
            let gtk = GtkModuleIntegration()
            report(toolkit, try gtk.snippet.enable(), say)
            if !gtk.inThisSession {
                say("GTK 3 apps load the menubus module from the next login on; this session is unchanged.\n")
            }
            let module = gtk.installedModule()
            if let module, !module.folder.searched {
                Output.err("menubus-cli integrate: note: \(module.path) is in a folder GTK 3 reads only when GTK_PATH names \(GtkModuleIntegration.parent(module.folder.path)); until then GTK 3 apps print 'Failed to load module \"menubus\"'\n")
            } else if module == nil {
                Output.err("menubus-cli integrate: note: no \(GtkModuleIntegration.moduleFile) is installed where GTK 3 looks; until it is, GTK 3 apps print 'Failed to load module \"menubus\"'\n")
            }
            enableGtk4(say)
        case .qt:
            let qt = QtThemeIntegration()
            report(toolkit, try qt.snippet.enable(), say)
            say("Qt apps load the menubus platform theme from the next login on, wrapping \(qt.sessionTheme.map { "'\($0)'" } ?? "the theme Qt picks for the desktop"); this session is unchanged.\n")
            if qt.installedPlugins().isEmpty {
                Output.err("menubus-cli integrate: note: no \(QtThemeIntegration.pluginFile) is installed for Qt 5 or Qt 6; until it is, Qt apps use their default theme and show no MenuBus items\n")
            }
        }
    }

    /// GTK 4's IM module, through GTK 4's settings.ini.
    private static func enableGtk4(_ say: (String) -> Void) {
        let gtk4 = Gtk4ImIntegration()
        do {
            let (change, path, value) = try gtk4.enable()
            say(change == .unchanged ? "GTK 4: already enabled by \(path)\n"
                : "GTK 4: enabled; gtk-im-module=\(value) in \(path) (GTK 4 apps started from now on)\n")
        } catch {
            Output.err("menubus-cli integrate: GTK 4: \(error)\n")
            return
        }
        if gtk4.installedModule() == nil {
            Output.err("menubus-cli integrate: note: no \(Gtk4ImIntegration.moduleFile) is installed where GTK 4 looks; until it is, GTK 4 apps use the IM after menubus in the setting\n")
        }
        if let by = gtk4.overriddenBy {
            Output.err("menubus-cli integrate: note: GTK 4 apps of this session take their IM from \(by)\n")
        }
    }

    private static func report(_ toolkit: Toolkit, _ result: (EnvironmentSnippet.Change, path: String), _ say: (String) -> Void) {
        switch result.0 {
        case .unchanged: say("\(toolkit.name): already enabled by \(result.path)\n")
        case .updated: say("\(toolkit.name): enabled; updated \(result.path)\n")
        default: say("\(toolkit.name): enabled; wrote \(result.path)\n")
        }
    }

    static func disable(_ toolkit: Toolkit, quiet: Bool = false) throws {
        let say: (String) -> Void = { text in if !quiet { Output.out(text) } }
        let (snippet, inThisSession, what) = switch toolkit {
        case .gtk: { let gtk = GtkModuleIntegration(); return (gtk.snippet, gtk.inThisSession, "the module") }()
        case .qt: { let qt = QtThemeIntegration(); return (qt.snippet, qt.inThisSession, "the theme") }()
        }
        let (change, path) = try snippet.disable()
        if change == .removed {
            say("\(toolkit.name): disabled; removed \(path)\n")
            if inThisSession { say("Apps of this session keep \(what) until you log out.\n") }
        } else {
            say("\(toolkit.name): not enabled (no \(path)); nothing to do\n")
        }
        if toolkit == .gtk {
            let (gtk4, settings) = try Gtk4ImIntegration().disable()
            say(gtk4 == .restored ? "GTK 4: disabled; gtk-im-module is as it was in \(settings)\n"
                : "GTK 4: not enabled (no setting of menubus-cli's in \(settings)); nothing to do\n")
        }
    }

    /// One toolkit's state, as lines and as a JSON object.
    struct Status {
        let text: String
        let json: String
    }

    /// What the snippet's state means, as a status line.
    private static func snippetLine(_ prefix: String, _ snippet: EnvironmentSnippet.State, _ path: String) -> String {
        switch snippet {
        case .ours: prefix + "enabled for new sessions by \(path)\n"
        case .absent: prefix + "not enabled (no \(path))\n"
        case .foreign: prefix + "not enabled by menubus-cli: \(path) is another's file, left as it is\n"
        }
    }

    static func status(_ toolkit: Toolkit) throws -> Status {
        switch toolkit {
        case .gtk:
            let gtk = GtkModuleIntegration()
            let path = try gtk.snippet.path()
            let snippet = try gtk.snippet.state(at: path)
            let module = gtk.installedModule()
            let session = gtk.inThisSession
            let prefix = toolkit.name + ": "
            var text = snippetLine(prefix, snippet, path)
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
            let gtk4 = Gtk4ImIntegration()
            let settings = try gtk4.state()
            let gtk4Module = gtk4.installedModule()
            if settings.ours {
                text += "GTK 4: enabled by gtk-im-module=\(settings.value ?? "") in \(settings.path)\n"
            } else {
                text += "GTK 4: not enabled (no setting of menubus-cli's in \(settings.path))\n"
            }
            text += gtk4Module.map { "GTK 4: module installed: \($0)\n" }
                ?? "GTK 4: module not installed (no \(Gtk4ImIntegration.moduleFile) in \(gtk4.moduleFolders().joined(separator: ", ")))\n"
            if let by = gtk4.overriddenBy {
                text += "GTK 4: apps of this session take their IM from \(by)\n"
            } else if let variable = gtk4.sessionVariable {
                text += "GTK 4: this session's GTK_IM_MODULE=\(variable) names menubus\n"
            }
            text += "A change takes effect at the next login.\n"
            let state = snippet.name
            let fields = [
                "\"toolkit\": \(MenuJSON.quote(toolkit.rawValue))",
                "\"enabled\": \(state == "enabled")",
                "\"snippet\": \(MenuJSON.quote(path))",
                "\"snippet-state\": \(MenuJSON.quote(state))",
                "\"module\": \(module.map { MenuJSON.quote($0.path) } ?? "null")",
                "\"module-loadable\": \(module?.folder.searched ?? false)",
                "\"this-session\": \(session)",
                "\"gtk4-settings\": \(MenuJSON.quote(settings.path))",
                "\"gtk4-enabled\": \(settings.ours)",
                "\"gtk4-setting\": \(settings.value.map(MenuJSON.quote) ?? "null")",
                "\"gtk4-module\": \(gtk4Module.map(MenuJSON.quote) ?? "null")",
            ]
            return Status(text: text, json: "{" + fields.joined(separator: ", ") + "}")
        case .qt:
            let qt = QtThemeIntegration()
            let path = try qt.snippet.path()
            let snippet = try qt.snippet.state(at: path)
            let plugins = qt.installedPlugins()
            let prefix = toolkit.name + ": "
            var text = snippetLine(prefix, snippet, path)
            for version in [5, 6] {
                if let plugin = plugins.first(where: { $0.qt == version }) {
                    text += prefix + "Qt \(version) theme installed: \(plugin.path)\n"
                } else {
                    text += prefix + "Qt \(version) theme not installed (no \(QtThemeIntegration.pluginFile) in QT_PLUGIN_PATH or /usr/lib/\(Multiarch.triplet)/qt\(version)/plugins)\n"
                }
            }
            if qt.inThisSession {
                text += prefix + "this session loads it (QT_QPA_PLATFORMTHEME=menubus, wrapping \(qt.sessionTheme ?? "Qt's choice"))\n"
            } else {
                let theme = qt.environment["QT_QPA_PLATFORMTHEME"] ?? ""
                text += prefix + "this session does not load it (QT_QPA_PLATFORMTHEME \(theme.isEmpty ? "is not set" : "is \(theme)"))\n"
            }
            text += "A change takes effect at the next login.\n"
            let fields = [
                "\"toolkit\": \(MenuJSON.quote(toolkit.rawValue))",
                "\"enabled\": \(snippet.name == "enabled")",
                "\"snippet\": \(MenuJSON.quote(path))",
                "\"snippet-state\": \(MenuJSON.quote(snippet.name))",
                "\"plugins\": [" + plugins.map { MenuJSON.quote($0.path) }.joined(separator: ", ") + "]",
                "\"wraps\": \(qt.sessionTheme.map(MenuJSON.quote) ?? "null")",
                "\"this-session\": \(qt.inThisSession)",
            ]
            return Status(text: text, json: "{" + fields.joined(separator: ", ") + "}")
        }
    }
}
