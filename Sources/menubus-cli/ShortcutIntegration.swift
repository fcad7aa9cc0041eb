import MenuBusModel
import MenuBusSupport

/// `menubus-cli integrate shortcut`: a desktop-wide key, Super+period
/// unless `--key` names another (GTK accelerator syntax), that runs
/// `menubus-cli show-menu`, so the focused app shows MenuBus's menu at its
/// caret. On GNOME a custom keybinding (`GnomeShortcut`), on KDE Plasma a
/// kglobalaccel launch shortcut (`KdeShortcut`); `--disable` removes
/// exactly what `--enable` added. Needs no daemon.
enum ShortcutIntegration {
    /// The operand of `integrate` that means this.
    static let word = "shortcut"
    static let defaultKey = "<Super>period"
    static let title = "MenuBus: menu at the caret"
    static let command = "menubus-cli show-menu"

    enum Desktop: String {
        case gnome, kde

        var name: String {
            switch self {
            case .gnome: "GNOME"
            case .kde: "KDE Plasma"
            }
        }
    }

    /// The session's desktop, from `XDG_CURRENT_DESKTOP` (`ubuntu:GNOME`,
    /// `KDE`): GNOME and the desktops built on its settings daemon, or KDE.
    static func desktop(_ environment: [String: String]) -> Desktop? {
        let names = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.lowercased() }
        if names.contains("kde") { return .kde }
        if names.contains(where: { $0 == "gnome" || $0 == "gnome-classic" || $0 == "gnome-flashback" || $0 == "unity" }) {
            return .gnome
        }
        return nil
    }

    static func run(_ arguments: inout Arguments, _ options: CommandLineTool.Options) throws -> Int32 {
        _ = arguments.remove(word)
        let action = try Integrate.Action.take(from: &arguments) ?? .status
        let key = try arguments.option("--key")
        try arguments.finish()
        if key != nil && action != .enable { throw UsageError("--key goes with --enable") }
        let accelerator = key ?? defaultKey
        guard ShortcutSyntax.isValid(accelerator) else {
            throw UsageError("--key: '\(accelerator)' is not a GTK accelerator; write modifiers in angle brackets and a key name, as in '<Super>period' or '<Control><Alt>m'")
        }
        let environment = Files.environment()
        guard let desktop = desktop(environment) else {
            let current = environment["XDG_CURRENT_DESKTOP"].map { "XDG_CURRENT_DESKTOP is '\($0)'" } ?? "XDG_CURRENT_DESKTOP is not set"
            throw CommandFailure("menubus-cli binds the shortcut on GNOME and KDE Plasma only (\(current)); bind '\(command)' to a key in your desktop's keyboard settings")
        }
        let say: (String) -> Void = { text in if !options.json { Output.out(text) } }
        switch (desktop, action) {
        case (.gnome, .enable):
            let gnome = GnomeShortcut(environment: environment)
            let (changed, clashes) = try gnome.enable(binding: accelerator)
            say(changed ? "Shortcut: \(accelerator) runs '\(command)' now (a GNOME custom keybinding at \(GnomeShortcut.path))\n"
                        : "Shortcut: already enabled: \(accelerator) runs '\(command)'\n")
            for clash in clashes {
                Output.err("menubus-cli integrate: note: \(accelerator) is bound to '\(clash)' too; GNOME runs only one of them\n")
            }
        case (.gnome, .disable):
            let removed = try GnomeShortcut(environment: environment).disable()
            say(removed ? "Shortcut: disabled; removed MenuBus's custom keybinding, the others are as they were\n"
                        : "Shortcut: not enabled; nothing to do\n")
        case (.kde, .enable):
            guard let shortcut = qtShortcut(accelerator) else {
                throw UsageError("--key: KDE Plasma cannot be given '\(accelerator)' by menubus-cli; use Ctrl, Alt, Shift or Super with a letter, a digit, a function key or period")
            }
            let kde = KdeShortcut(environment: environment)
            let changed = try kde.enable(shortcut: shortcut)
            say(changed ? "Shortcut: \(shortcut) runs '\(command)' from the next login on (KDE Plasma; wrote \(try kde.path()))\n"
                        : "Shortcut: already enabled: \(shortcut) runs '\(command)'\n")
        case (.kde, .disable):
            let kde = KdeShortcut(environment: environment)
            let removed = try kde.disable()
            say(removed ? "Shortcut: disabled; removed \(try kde.path())\n" : "Shortcut: not enabled; nothing to do\n")
        case (_, .status):
            break
        }
        if action == .status || options.json {
            let status = try self.status(desktop, environment: environment)
            Output.out(options.json ? status.json + "\n" : status.text)
        }
        return 0
    }

    /// Where the shortcut stands, as a line and as a JSON object.
    static func status(_ desktop: Desktop, environment: [String: String]) throws -> Integrate.Status {
        let enabled: Bool, key: String?, place: String
        switch desktop {
        case .gnome:
            let state = try GnomeShortcut(environment: environment).state()
            enabled = state.listed && state.command == command
            key = state.binding.isEmpty ? nil : state.binding
            place = GnomeShortcut.path
        case .kde:
            let kde = KdeShortcut(environment: environment)
            place = try kde.path()
            switch try kde.state() {
            case .ours(let shortcut): (enabled, key) = (true, shortcut)
            case .absent, .foreign: (enabled, key) = (false, nil)
            }
        }
        let text = enabled ? "Shortcut: \(key ?? "") runs '\(command)' (\(desktop.name): \(place))\n"
                           : "Shortcut: not enabled on \(desktop.name)\n"
        let fields = [
            "\"desktop\": \(MenuJSON.quote(desktop.rawValue))",
            "\"enabled\": \(enabled)",
            "\"key\": \(key.map(MenuJSON.quote) ?? "null")",
            "\"command\": \(MenuJSON.quote(command))",
            "\"where\": \(MenuJSON.quote(place))",
        ]
        return Integrate.Status(text: text, json: "{" + fields.joined(separator: ", ") + "}")
    }

    /// A GTK accelerator as Qt spells it for kglobalaccel (`<Super>period`
    /// → `Meta+.`); nil for a modifier or key it cannot spell here.
    static func qtShortcut(_ accelerator: String) -> String? {
        var rest = Substring(accelerator)
        var modifiers: Set<String> = []
        while rest.first == "<", let close = rest.firstIndex(of: ">") {
            let name = rest[rest.index(after: rest.startIndex)..<close].lowercased()
            switch name {
            case "control", "ctrl", "ctl", "primary": modifiers.insert("Ctrl")
            case "shift", "shft": modifiers.insert("Shift")
            case "alt", "mod1": modifiers.insert("Alt")
            case "super", "meta", "mod4": modifiers.insert("Meta")
            default: return nil
            }
            rest = rest[rest.index(after: close)...]
        }
        let named: [String: String] = [
            "period": ".", "slash": "/", "backslash": "\\", "semicolon": ";", "apostrophe": "'", "minus": "-",
            "equal": "=", "bracketleft": "[", "bracketright": "]", "grave": "`", "space": "Space", "Return": "Return",
            "Escape": "Esc", "Tab": "Tab", "BackSpace": "Backspace", "Delete": "Del", "Insert": "Ins", "Home": "Home",
            "End": "End", "Page_Up": "PgUp", "Page_Down": "PgDown", "Left": "Left", "Right": "Right", "Up": "Up",
            "Down": "Down", "Print": "Print", "Menu": "Menu", "Pause": "Pause",
        ]
        let key: String
        if let spelled = named[String(rest)] {
            key = spelled
        } else if rest.count == 1, let character = rest.first, character.isASCII, character.isLetter || character.isNumber {
            key = character.uppercased()
        } else if rest.hasPrefix("F"), let number = Int(rest.dropFirst()), (1...35).contains(number) {
            key = String(rest)
        } else {
            return nil
        }
        return (["Meta", "Ctrl", "Alt", "Shift"].filter(modifiers.contains) + [key]).joined(separator: "+")
    }
}
